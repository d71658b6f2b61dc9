import { describe, expect, it } from 'vitest';
import { decideBlock, decideCheckpoint, decideClaim, decideRelease, decideReturn, decideUnblock, type WuCommandState } from '../../deciders/work-units.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import { given, refusalOf, T0, versionOf, type Fact } from './given.js';

/** The `wu` lifecycle rules (work-units.md §3.3), decided without a store or the binary. */
const WU = 'WU-1';
const stream = `wu/${WU}`;
const defaults = { claimMode: 'worktree' as const, worktreesDir: 'worktrees' };
const defined: Fact = { type: 'wu.defined', stream, data: { wu_id: WU, title: 'One', lane: 'Core API', dependencies: [], code_paths: [] } };
const session = (id: string, ttl = 3600): Fact => ({
  type: 'session.started',
  stream: `session/${id}`,
  data: { session_id: id, display_name: id, ttl_seconds: ttl },
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
    const decision = decideClaim({ wuId: WU, session: 'session_a', now: at(5), defaults }, state([defined]));
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
      decideClaim({ wuId: WU, session: 'session_a', now: at(5), defaults }, state([session('session_a'), defined, claimedBy('session_a')])).events,
    ).toEqual([]);
  });

  it('a live claimant keeps the WU: ALREADY_CLAIMED', () => {
    const refusal = refusalOf(() =>
      decideClaim({ wuId: WU, session: 'session_b', now: at(10), defaults }, state([session('session_a'), defined, claimedBy('session_a')])),
    );
    expect(refusal).toEqual({ code: 'ALREADY_CLAIMED', message: `${WU} is claimed by live session session_a` });
  });

  it('a claimant past its TTL is taken over, and the claim names it', () => {
    const decision = decideClaim(
      { wuId: WU, session: 'session_b', now: at(200), defaults },
      state([session('session_a', 60), defined, claimedBy('session_a')]),
    );
    expect(decision.events[0]!.data['takeover_from']).toBe('session_a');
  });

  it('a worktree for a claim mode without one is refused, naming the worktree field', () => {
    const refusal = refusalOf(() => decideClaim({ wuId: WU, session: null, now: at(1), mode: 'branch-only', worktree: 'wt', defaults }, state([defined])));
    expect(refusal).toEqual({ code: 'INVALID_INPUT', message: 'worktree: a branch-only claim has no worktree (the root checkout is its workspace)' });
  });

  it('an unknown WU is UNKNOWN_ID', () => {
    expect(refusalOf(() => decideClaim({ wuId: 'WU-9', session: null, now: at(1), defaults }, state([defined]))).code).toBe('UNKNOWN_ID');
  });
});

describe('wu checkpoint, return, block, unblock, release', () => {
  const claimed = [session('session_a'), defined, claimedBy('session_a')];

  it('a checkpoint needs a claim: NOT_CLAIMED on a ready WU', () => {
    expect(refusalOf(() => decideCheckpoint({ wuId: WU, session: null, now: at(1), note: 'n' }, state([defined]))).code).toBe('NOT_CLAIMED');
    expect(decideCheckpoint({ wuId: WU, session: 'session_a', now: at(9), note: 'half' }, state(claimed)).events[0]!.type).toBe('wu.checkpointed');
  });

  it('a return after a return appends nothing', () => {
    const returned: Fact = { type: 'wu.worker_returned', stream, data: { wu_id: WU, session_id: 'session_a', note: null, source: 'manual' } };
    expect(decideReturn({ wuId: WU, session: 'session_a', now: at(9) }, state([...claimed, returned])).events).toEqual([]);
  });

  it('block then unblock returns a claimed WU to in_progress', () => {
    const block = decideBlock({ wuId: WU, session: 'session_a', now: at(9), reason: '  waiting on API  ' }, state(claimed));
    expect(block.events[0]!.data).toEqual({ wu_id: WU, reason: 'waiting on API' });
    const blocked: Fact = { type: 'wu.blocked', stream, data: { wu_id: WU, reason: 'waiting on API' } };
    expect(decideUnblock({ wuId: WU, session: 'session_a', now: at(10) }, state([...claimed, blocked])).outcome.yaml_status).toBe('in_progress');
  });

  it("releasing somebody else's claim needs a reason", () => {
    const refusal = refusalOf(() => decideRelease({ wuId: WU, session: 'session_b', now: at(9) }, state(claimed)));
    expect(refusal).toEqual({ code: 'INVALID_INPUT', message: 'reason: required when the actor is not the claimant (session_a)' });
    expect(decideRelease({ wuId: WU, session: 'session_a', now: at(9) }, state(claimed)).events[0]!.data).toEqual({
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
      () => decideClaim({ wuId: WU, session: 'session_a', now: at(9), defaults }, done),
      () => decideCheckpoint({ wuId: WU, session: 'session_a', now: at(9), note: 'n' }, done),
      () => decideBlock({ wuId: WU, session: 'session_a', now: at(9), reason: 'r' }, done),
    ]) {
      expect(refusalOf(decide)).toEqual(expect.objectContaining({ code: 'ILLEGAL_TRANSITION', message: expect.stringContaining('terminal state done') }));
    }
  });
});
