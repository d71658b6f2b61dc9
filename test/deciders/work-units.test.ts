import { describe, expect, it } from 'vitest';
import { decideBlock, decideCheckpoint, decideClaim, decideRelease, decideReturn, decideUnblock, type WuCommandState } from '../../deciders/work-units.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import { given, refusalOf, T0, versionOf, type Fact } from './given.js';
import { DEFAULT_WORK_UNITS_CONFIG } from '../../projections/work-units/settings.js';

/** The `wu` lifecycle rules (work-units.md §3.3), decided without a store or the binary. */
const WU = 'WU-1';
const stream = `wu/${WU}`;
const defaults = { claimMode: 'worktree' as const, worktreesDir: 'worktrees' };
const config = DEFAULT_WORK_UNITS_CONFIG;
const defined: Fact = { type: 'wu.defined', stream, data: { wu_id: WU, title: 'One', lane: 'Core API', dependencies: [], code_paths: [] } };
const session = (id: string, ttl = 3600): Fact => ({
  type: 'session.started',
  stream: `session/${id}`,
  data: { session_id: id, display_name: id, ttl_seconds: ttl },
});
const orchestrator = (id: string): Fact => ({
  type: 'session.started',
  stream: `session/${id}`,
  data: { session_id: id, display_name: id, ttl_seconds: 3600, role: 'orchestrator' },
});
const claimedBy = (id: string | null): Fact => ({
  type: 'wu.claimed',
  stream,
  data: { wu_id: WU, session_id: id, mode: 'worktree', worktree_path: 'worktrees/core-api-wu-1', branch: 'lane/core-api/wu-1', takeover_from: null },
});
const state = (facts: Fact[]): WuCommandState => ({ fold: given(workUnitsStateProjection, facts), version: versionOf(facts, stream) });
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

describe('wu claim', () => {
  it('given a ready WU, claims it in a worktree named after its lane, at the stream version read', () => {
    const decision = decideClaim({ wuId: WU, session: 'session_a', actor: 'session_a', now: at(5), defaults, config }, state([defined]));
    expect(decision.events).toEqual([
      {
        type: 'wu.claimed',
        stream,
        data: {
          wu_id: WU,
          session_id: 'session_a',
          mode: 'worktree',
          worktree_path: 'worktrees/core-api-wu-1',
          branch: 'lane/core-api/wu-1',
          takeover_from: null,
        },
      },
    ]);
    expect(decision.expected).toEqual({ [stream]: 1 });
    expect(decision.outcome.yaml_status).toBe('in_progress');
  });

  it("the claimant's own repeat appends nothing", () => {
    expect(
      decideClaim(
        { wuId: WU, session: 'session_a', actor: 'session_a', now: at(5), defaults, config },
        state([session('session_a'), defined, claimedBy('session_a')]),
      ).events,
    ).toEqual([]);
  });

  it('a live claimant keeps the WU: ALREADY_CLAIMED, even with --takeover', () => {
    const live = state([session('session_a'), defined, claimedBy('session_a')]);
    const b = { wuId: WU, session: 'session_b', actor: 'session_b', now: at(10), defaults, config };
    const lease = at(60);
    expect(refusalOf(() => decideClaim(b, live))).toEqual({
      code: 'ALREADY_CLAIMED',
      message: `${WU} is claimed by live session session_a (lease until ${lease})`,
    });
    expect(refusalOf(() => decideClaim({ ...b, takeover: true, reason: 'mine now' }, live)).code).toBe('ALREADY_CLAIMED');
  });

  it('a claimant past its TTL is taken over only with --takeover and a reason, and the claim names it and the reason', () => {
    const lapsed = state([session('session_a', 60), session('session_b'), defined, claimedBy('session_a')]);
    const b = { wuId: WU, session: 'session_b', actor: 'session_b', now: at(200), defaults, config };
    const plain = refusalOf(() => decideClaim(b, lapsed));
    expect(plain.code).toBe('NOT_HOLDER');
    expect(plain.message).toContain(`${WU} is held by session_a (last sign of life ${T0}; lease lapsed ${at(1)})`);
    expect(plain.message).toContain(`baton wu claim ${WU} --takeover --reason R`);
    expect(refusalOf(() => decideClaim({ ...b, takeover: true }, lapsed))).toEqual({
      code: 'INVALID_INPUT',
      message: 'reason: required with takeover (say why)',
    });
    const decision = decideClaim({ ...b, takeover: true, reason: 'session_a went silent' }, lapsed);
    expect(decision.events[0]!.data).toMatchObject({ takeover_from: 'session_a', reason: 'session_a went silent' });
  });

  it('a worktree for a claim mode without one is refused, naming the worktree field', () => {
    const refusal = refusalOf(() =>
      decideClaim({ wuId: WU, session: null, actor: 'claude:core', now: at(1), mode: 'branch-only', worktree: 'wt', defaults, config }, state([defined])),
    );
    expect(refusal).toEqual({ code: 'INVALID_INPUT', message: 'worktree: a branch-only claim has no worktree (the root checkout is its workspace)' });
  });

  it('an unknown WU is UNKNOWN_ID', () => {
    expect(refusalOf(() => decideClaim({ wuId: 'WU-9', session: null, actor: 'system', now: at(1), defaults, config }, state([defined]))).code).toBe(
      'UNKNOWN_ID',
    );
  });
});

describe('wu checkpoint, return, block, unblock, release', () => {
  const claimed = [session('session_a'), defined, claimedBy('session_a')];

  it('a checkpoint needs a claim: NOT_CLAIMED on a ready WU', () => {
    expect(refusalOf(() => decideCheckpoint({ wuId: WU, session: null, actor: 'system', now: at(1), note: 'n' }, state([defined]))).code).toBe('NOT_CLAIMED');
    expect(decideCheckpoint({ wuId: WU, session: 'session_a', actor: 'session_a', now: at(9), note: 'half' }, state(claimed)).events[0]!.type).toBe(
      'wu.checkpointed',
    );
  });

  it('a return after a return appends nothing', () => {
    const returned: Fact = { type: 'wu.worker_returned', stream, data: { wu_id: WU, session_id: 'session_a', note: null, source: 'manual' } };
    expect(decideReturn({ wuId: WU, session: 'session_a', actor: 'session_a', now: at(9) }, state([...claimed, returned])).events).toEqual([]);
  });

  it('block then unblock returns a claimed WU to in_progress', () => {
    const block = decideBlock({ wuId: WU, session: 'session_a', actor: 'session_a', now: at(9), reason: '  waiting on API  ' }, state(claimed));
    expect(block.events[0]!.data).toEqual({ wu_id: WU, reason: 'waiting on API' });
    const blocked: Fact = { type: 'wu.blocked', stream, data: { wu_id: WU, reason: 'waiting on API' } };
    expect(decideUnblock({ wuId: WU, session: 'session_a', actor: 'session_a', now: at(10) }, state([...claimed, blocked])).outcome.yaml_status).toBe(
      'in_progress',
    );
  });

  it("an orchestrator releasing a returned worker's claim needs a reason; the holder does not", () => {
    const returned: Fact = { type: 'wu.worker_returned', stream, data: { wu_id: WU, session_id: 'session_a', note: null, source: 'manual' } };
    const orchestrated = state([...claimed, orchestrator('session_o'), returned]);
    const refusal = refusalOf(() => decideRelease({ wuId: WU, session: 'session_o', actor: 'session_o', now: at(9) }, orchestrated));
    expect(refusal).toEqual({ code: 'INVALID_INPUT', message: 'reason: required when the actor is not the claimant (session_a)' });
    expect(decideRelease({ wuId: WU, session: 'session_o', actor: 'session_o', now: at(9), reason: 'reassigning' }, orchestrated).events[0]!.data).toEqual({
      wu_id: WU,
      reason: 'reassigning',
      previous_claimant: 'session_a',
    });
    expect(decideRelease({ wuId: WU, session: 'session_a', actor: 'session_a', now: at(9) }, state(claimed)).events[0]!.data).toEqual({
      wu_id: WU,
      reason: null,
      previous_claimant: 'session_a',
    });
  });

  it('a done WU refuses every lifecycle command as terminal', () => {
    const stamped: Fact = {
      type: 'wu.stamped',
      stream,
      data: { wu_id: WU, title: 'One', completed_date: '2026-06-01', stamp_path: '.baton/stamps/WU-1.done' },
    };
    const done = state([...claimed, stamped]);
    for (const decide of [
      () => decideClaim({ wuId: WU, session: 'session_a', actor: 'session_a', now: at(9), defaults, config }, done),
      () => decideCheckpoint({ wuId: WU, session: 'session_a', actor: 'session_a', now: at(9), note: 'n' }, done),
      () => decideBlock({ wuId: WU, session: 'session_a', actor: 'session_a', now: at(9), reason: 'r' }, done),
    ]) {
      expect(refusalOf(decide)).toEqual(expect.objectContaining({ code: 'ILLEGAL_TRANSITION', message: expect.stringContaining('terminal state done') }));
    }
  });
});
