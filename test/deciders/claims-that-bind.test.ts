import { describe, expect, it } from 'vitest';
import { decideBlock, decideCheckpoint, decideClaim, decideRelease, decideReturn, decideUnblock, type WuCommandState } from '../../deciders/work-units.js';
import { decideDone } from '../../deciders/work-unit-definitions.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import { DEFAULT_WORK_UNITS_CONFIG } from '../../projections/work-units/settings.js';
import { given, refusalOf, T0, versionOf, type Fact } from './given.js';

/**
 * Claims that bind: only the holder acts on a claim (or a later session of its agent identity); an
 * orchestrator finishes a returned or lapsed one; a claim needs a holder and checks readiness.
 */
const defaults = { claimMode: 'worktree' as const, worktreesDir: 'worktrees' };
const config = DEFAULT_WORK_UNITS_CONFIG;
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();
const wu = (id: string, extra: Record<string, unknown> = {}): Fact => ({
  type: 'wu.defined',
  stream: `wu/${id}`,
  data: { wu_id: id, title: id, lane: 'Core API', dependencies: [], code_paths: [], ...extra },
});
const started = (id: string, extra: Record<string, unknown> = {}, ttl = 3600): Fact => ({
  type: 'session.started',
  stream: `session/${id}`,
  data: { session_id: id, display_name: id, ttl_seconds: ttl, ...extra },
});
const claimed = (id: string, session: string | null, extra: Record<string, unknown> = {}, actor = session ?? 'system'): Fact => ({
  type: 'wu.claimed',
  stream: `wu/${id}`,
  actor,
  data: { wu_id: id, session_id: session, mode: 'worktree', worktree_path: null, branch: null, takeover_from: null, ...extra },
});
const stamped = (id: string): Fact => ({
  type: 'wu.stamped',
  stream: `wu/${id}`,
  data: { wu_id: id, title: id, completed_date: '2026-06-01', stamp_path: `.baton/stamps/${id}.done` },
});
const state = (facts: Fact[], id = 'WU-1'): WuCommandState => ({ fold: given(workUnitsStateProjection, facts), version: versionOf(facts, `wu/${id}`) });
const as = (session: string | null, minutes = 10, actor = session ?? 'system') => ({ wuId: 'WU-1', session, actor, now: at(minutes) });
const claimBy = (session: string | null, minutes = 10, actor?: string) => ({ ...as(session, minutes, actor), defaults, config });
const doneBy = (session: string | null, minutes = 10) => ({
  ...as(session, minutes),
  today: '2026-06-01',
  stampFileValid: false,
  stampPath: '.baton/stamps/WU-1.done',
});

const A = 'session_a';
const B = 'session_b';
const O = 'session_o';
const held = [started(A), started(B), started(O, { role: 'orchestrator' }), wu('WU-1'), claimed('WU-1', A)];

describe('only the holder acts on a claim', () => {
  it('checkpoint, return, block, unblock, release and done by another live session: NOT_HOLDER naming the holder, its last sign of life and its lease', () => {
    const s = state(held);
    const blocked = state([...held, { type: 'wu.blocked', stream: 'wu/WU-1', actor: A, at: at(4), data: { wu_id: 'WU-1', reason: 'waiting' } }]);
    const refusals = [
      refusalOf(() => decideCheckpoint({ ...as(B), note: 'not mine' }, s)),
      refusalOf(() => decideReturn(as(B), s)),
      refusalOf(() => decideBlock({ ...as(B), reason: 'r' }, s)),
      refusalOf(() => decideUnblock(as(B), blocked)),
      refusalOf(() => decideRelease({ ...as(B), reason: 'r' }, s)),
      refusalOf(() => decideDone(doneBy(B), s)),
    ];
    for (const refusal of refusals) {
      expect(refusal.code).toBe('NOT_HOLDER');
      // A's claim (the fifth fact, at minute 4) is its last sign of life: any fact a session records keeps it alive.
      expect(refusal.message).toContain(`WU-1 is held by ${A} (last sign of life ${at(4)}; lease lapses ${at(64)})`);
    }
    expect(refusals[0]!.message).toContain('baton mem signal');
  });

  it('the holder acts; a later session of the same agent identity acts as the holder', () => {
    const facts = [started(A, { agent_identity: 'claude:core' }), wu('WU-1'), claimed('WU-1', A), started('session_c', { agent_identity: 'claude:core' })];
    expect(decideCheckpoint({ ...as(A), note: 'mine' }, state(facts)).events).toHaveLength(1);
    expect(decideCheckpoint({ ...as('session_c'), note: 'carrying on' }, state(facts)).events).toHaveLength(1);
    // A claim by the later session carries the claim on, naming the session it came from, without --takeover.
    expect(decideClaim(claimBy('session_c'), state(facts)).events[0]!.data).toMatchObject({ session_id: 'session_c', takeover_from: A });
  });

  it('a sessionless claim of an older log is unowned: anyone may act on it', () => {
    const facts = [started(B), wu('WU-1'), claimed('WU-1', null)];
    expect(decideCheckpoint({ ...as(B), note: 'n' }, state(facts)).events).toHaveLength(1);
  });

  it('after its lease lapsed, a non-holder is still refused: it must take the WU over first', () => {
    const lapsed = [started(A, {}, 60), started(B), wu('WU-1'), claimed('WU-1', A)];
    const refusal = refusalOf(() => decideCheckpoint({ ...as(B, 200), note: 'n' }, state(lapsed)));
    expect(refusal.code).toBe('NOT_HOLDER');
    expect(refusal.message).toContain('take it over first: baton wu claim WU-1 --takeover --reason R');
  });
});

describe('an orchestrator finishes what its worker returned or let lapse', () => {
  const returned: Fact = { type: 'wu.worker_returned', stream: 'wu/WU-1', actor: A, data: { wu_id: 'WU-1', session_id: A, note: null, source: 'manual' } };

  it('refused while the worker is live and has not returned', () => {
    expect(refusalOf(() => decideDone(doneBy(O), state(held))).code).toBe('NOT_HOLDER');
  });

  it('after the return: done records the holder it finished for', () => {
    expect(decideDone(doneBy(O), state([...held, returned])).events[0]!.data).toMatchObject({ wu_id: 'WU-1', finished_for: A });
  });

  it('after the lease lapsed: done and release (with a reason) are allowed; a plain session is still refused', () => {
    const lapsed = [started(A, {}, 60), started(B), started(O, { role: 'orchestrator' }), wu('WU-1'), claimed('WU-1', A)];
    expect(decideDone(doneBy(O, 200), state(lapsed)).events[0]!.data['finished_for']).toBe(A);
    expect(decideRelease({ ...as(O, 200), reason: 'worker gone' }, state(lapsed)).events[0]!.data).toMatchObject({
      reason: 'worker gone',
      previous_claimant: A,
    });
    expect(refusalOf(() => decideDone(doneBy(B, 200), state(lapsed))).code).toBe('NOT_HOLDER');
  });

  it('the holder finishing records no finished_for', () => {
    expect(decideDone(doneBy(A), state(held)).events[0]!.data).not.toHaveProperty('finished_for');
  });
});

describe('holding needs an identity', () => {
  it('a claim by no session and no agent identity is refused, naming the ways to get one', () => {
    const refusal = refusalOf(() => decideClaim(claimBy(null), state([wu('WU-1')])));
    expect(refusal.code).toBe('NO_IDENTITY');
    for (const word of ['--session', 'BATON_SESSION', 'BATON_AGENT_IDENTITY', 'baton session start']) expect(refusal.message).toContain(word);
  });

  it('a claim by an agent identity alone records it; that identity holds it, others are refused', () => {
    const decision = decideClaim(claimBy(null, 1, 'claude:docs'), state([wu('WU-1')]));
    expect(decision.events[0]!.data).toMatchObject({ session_id: null, agent_identity: 'claude:docs' });
    const facts = [started(B), wu('WU-1'), claimed('WU-1', null, { agent_identity: 'claude:docs' }, 'claude:docs')];
    expect(decideCheckpoint({ ...as(null, 5, 'claude:docs'), note: 'mine' }, state(facts)).events).toHaveLength(1);
    expect(refusalOf(() => decideCheckpoint({ ...as(B, 5), note: 'not mine' }, state(facts))).code).toBe('NOT_HOLDER');
  });
});

describe('a claim checks readiness', () => {
  it('unfinished dependencies (dependencies and blocked_by): DEPENDENCIES_NOT_DONE naming them; --force --reason records the override', () => {
    const facts = [
      started(A),
      started(B),
      wu('WU-2'),
      wu('WU-3'),
      claimed('WU-3', B),
      stamped('WU-3'),
      wu('WU-1', { dependencies: ['WU-2', 'WU-3'], blocked_by: ['WU-4'] }),
      wu('WU-4'),
    ];
    const refusal = refusalOf(() => decideClaim(claimBy(A), state(facts)));
    expect(refusal).toEqual({
      code: 'DEPENDENCIES_NOT_DONE',
      message: 'WU-1 depends on WU-2, WU-4, not done yet; finish them first, or claim with --force --reason R',
    });
    expect(refusalOf(() => decideClaim({ ...claimBy(A), force: true }, state(facts)))).toEqual({
      code: 'INVALID_INPUT',
      message: 'reason: required with force (say why)',
    });
    const forced = decideClaim({ ...claimBy(A), force: true, reason: 'WU-2 is a doc-only change' }, state(facts));
    expect(forced.events[0]!.data).toMatchObject({ forced: ['dependencies'], reason: 'WU-2 is a doc-only change' });
  });

  it('a lane at its WIP limit: LANE_AT_WIP_LIMIT naming the holders; a lane with lock policy none never is', () => {
    const facts = [started(A), started(B), wu('WU-1'), wu('WU-2'), claimed('WU-2', B)];
    expect(refusalOf(() => decideClaim(claimBy(A), state(facts)))).toEqual({
      code: 'LANE_AT_WIP_LIMIT',
      message: 'lane Core API is at its WIP limit (1), held by WU-2; wait for one to finish, or claim with --force --reason R',
    });
    expect(decideClaim({ ...claimBy(A), force: true, reason: 'hotfix' }, state(facts)).events[0]!.data).toMatchObject({ forced: ['lane'] });
    const open = { ...config, lanes: { 'Core API': { lock_policy: 'none' as const } } };
    expect(decideClaim({ ...claimBy(A), config: open }, state(facts)).events).toHaveLength(1);
    // A done WU no longer holds its lane.
    expect(decideClaim(claimBy(A), state([...facts, stamped('WU-2')])).events).toHaveLength(1);
  });

  it('a lane limit recorded by a LumenFlow import counts as orchestrate status counts it, unless the config names the lane', () => {
    const recorded: Fact = {
      type: 'settings.recorded',
      stream: 'settings/lumenflow',
      data: { source: 'lumenflow', path: 'workspace.yaml', lanes: { 'Core API': { wip_limit: 2 } }, max_active_workers: null, stamps_dir: '.lumenflow/stamps' },
    };
    const one = [recorded, started(A), started(B), wu('WU-1'), wu('WU-2'), wu('WU-3'), claimed('WU-2', B)];
    expect(decideClaim(claimBy(A), state(one)).events).toHaveLength(1);
    expect(refusalOf(() => decideClaim(claimBy(A), state([...one, claimed('WU-3', B)])))?.message).toContain('WIP limit (2)');
    const configured = { ...config, lanes: { 'Core API': { wip_limit: 1 } } };
    expect(refusalOf(() => decideClaim({ ...claimBy(A), config: configured }, state(one)))?.code).toBe('LANE_AT_WIP_LIMIT');
  });
});
