import { describe, expect, it } from 'vitest';
import { decideLapses, withLapses } from '../../deciders/sessions.js';
import { coordinationStateProjection } from '../../projections/coordination/roster.js';
import { currentLapse } from '../../projections/coordination/sessions.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import { given, specify, T0, versionOf, type Fact } from './given.js';

/**
 * Leases that end visibly: a session idle past its TTL while it holds work units lapses, and the
 * lapse is recorded once (`session.lapsed`, on the session's stream at the version the fold read);
 * a session that comes back and lapses again is a new lapse. Decided on the work-unit fold.
 */
const A = 'session_a';
const B = 'session_b';
const minutes = (n: number): string => new Date(Date.parse(T0) + n * 60_000).toISOString();
const started = (id: string, at: string, ttl = 600): Fact => ({
  type: 'session.started',
  stream: `session/${id}`,
  at,
  actor: id,
  data: { session_id: id, display_name: id.slice('session_'.length).toUpperCase(), ttl_seconds: ttl },
});
const wu = (id: string): Fact => ({
  type: 'wu.defined',
  stream: `wu/${id}`,
  at: T0,
  data: { wu_id: id, title: id, lane: 'Core API', dependencies: [], code_paths: [] },
});
const claimed = (id: string, session: string, at: string): Fact => ({
  type: 'wu.claimed',
  stream: `wu/${id}`,
  at,
  actor: session,
  data: { wu_id: id, session_id: session, mode: 'worktree', worktree_path: null, branch: null, takeover_from: null },
});
const heartbeat = (id: string, at: string): Fact => ({ type: 'session.heartbeat', stream: `session/${id}`, at, actor: id, data: { session_id: id } });
const lapsed = (id: string, lastSeen: string, held: string[], ttl = 600, actor = 'system'): Fact => ({
  type: 'session.lapsed',
  stream: `session/${id}`,
  at: new Date(Date.parse(lastSeen) + ttl * 1000 + 60_000).toISOString(),
  actor,
  data: { session_id: id, last_seen: lastSeen, ttl_seconds: ttl, lapsed_at: new Date(Date.parse(lastSeen) + ttl * 1000).toISOString(), held_wus: held },
});
const lapseEvent = (id: string, lastSeen: string, held: string[], ttl = 600) => ({
  type: 'session.lapsed',
  stream: `session/${id}`,
  data: { session_id: id, last_seen: lastSeen, ttl_seconds: ttl, lapsed_at: new Date(Date.parse(lastSeen) + ttl * 1000).toISOString(), held_wus: held },
});

/** `decideLapses(state, now)` as a given/when/then decider: the command is the clock. */
const lapses = specify({ decide: (now: string, state: ReturnType<typeof fold>) => decideLapses(state, now), state: (facts) => fold(facts) });
const fold = (facts: readonly Fact[]) => given(workUnitsStateProjection, facts);

// A (TTL ten minutes) claims WU-1 and WU-2 at minute 1; B claims nothing.
const holding: Fact[] = [started(A, T0), started(B, T0), wu('WU-2'), wu('WU-1'), claimed('WU-2', A, minutes(1)), claimed('WU-1', A, minutes(1))];

describe('decideLapses', () => {
  it('a holder idle past its TTL lapses: last seen, TTL, lapsed_at = last seen + TTL, the WUs it held; on its stream at the version read', () => {
    const decision = lapses
      .given(holding)
      .when(minutes(30))
      .then([lapseEvent(A, minutes(1), ['WU-1', 'WU-2'])]);
    expect(decision.expected).toEqual({ [`session/${A}`]: versionOf(holding, `session/${A}`) });
    expect(decision.outcome.map((l) => l.lapsed_at)).toEqual([minutes(11)]);
  });

  it('nothing while the holder is live (idle exactly its TTL is still live), nor for a stale session that holds nothing', () => {
    lapses.given(holding).when(minutes(11)).thenNothing();
    lapses
      .given([started(B, T0)])
      .when(minutes(30))
      .thenNothing();
  });

  it('nothing for an ended holder, nor for WUs released or done', () => {
    lapses
      .given([...holding, { type: 'session.ended', stream: `session/${A}`, at: minutes(2), actor: A, data: { session_id: A, status: 'succeeded' } }])
      .when(minutes(30))
      .thenNothing();
    const released = (id: string): Fact => ({
      type: 'wu.released',
      stream: `wu/${id}`,
      at: minutes(2),
      actor: A,
      data: { wu_id: id, previous_claimant: A, reason: 'r' },
    });
    const stamped: Fact = {
      type: 'wu.stamped',
      stream: 'wu/WU-2',
      at: minutes(2),
      actor: A,
      data: { wu_id: 'WU-2', title: 'WU-2', completed_date: '2026-06-01', stamp_path: '.baton/stamps/WU-2.done' },
    };
    lapses
      .given([...holding, released('WU-1'), stamped])
      .when(minutes(30))
      .thenNothing();
  });

  it('idempotent: a lapse recorded (by anyone) is not recorded again, however late', () => {
    lapses
      .given([...holding, lapsed(A, minutes(1), ['WU-1', 'WU-2'], 600, B)])
      .when(minutes(30))
      .thenNothing();
    lapses
      .given([...holding, lapsed(A, minutes(1), ['WU-1', 'WU-2'])])
      .when(minutes(600))
      .thenNothing();
  });

  it('a session that comes back and lapses again is a new lapse, named by its new last_seen', () => {
    const back = [...holding, lapsed(A, minutes(1), ['WU-1', 'WU-2']), heartbeat(A, minutes(20))];
    lapses.given(back).when(minutes(25)).thenNothing();
    const decision = lapses
      .given(back)
      .when(minutes(40))
      .then([lapseEvent(A, minutes(20), ['WU-1', 'WU-2'])]);
    expect(decision.expected).toEqual({ [`session/${A}`]: versionOf(back, `session/${A}`) });
  });

  it('the lapse event itself does not revive the lapsed session; the actor that records it is kept alive', () => {
    const recorded = [...holding, started('session_c', minutes(1)), lapsed(A, minutes(1), ['WU-1', 'WU-2'], 600, 'session_c')];
    const state = fold(recorded);
    expect(state.sessions[A]!.last_heartbeat_at).toBe(minutes(1));
    expect(state.sessions['session_c']!.last_heartbeat_at).toBe(recorded.at(-1)!.at);
  });

  it('recorded as a session that may not act (ended or unknown), nothing is decided: the command records no lapse', () => {
    const ended = [...holding, { type: 'session.ended', stream: `session/${B}`, at: minutes(2), actor: B, data: { session_id: B, status: 'succeeded' } }];
    expect(decideLapses(fold(ended), minutes(30), B)).toBeNull();
    expect(decideLapses(fold(holding), minutes(30), 'session_unknown')).toBeNull();
    expect(decideLapses(fold(holding), minutes(30), B)?.events).toHaveLength(1);
    expect(decideLapses(fold(holding), minutes(30), 'claude:docs')?.events).toHaveLength(1);
  });

  it('withLapses puts the lapses first in a decision that appends, with both expected versions; none in one that appends nothing', () => {
    const found = decideLapses(fold(holding), minutes(30));
    const claim = { events: [{ type: 'wu.claimed', stream: 'wu/WU-1', data: {} }], expected: { 'wu/WU-1': 2 }, outcome: 'x' };
    const merged = withLapses(claim, found);
    expect(merged.events.map((e) => e.type)).toEqual(['session.lapsed', 'wu.claimed']);
    expect(merged.expected).toEqual({ [`session/${A}`]: 1, 'wu/WU-1': 2 });
    expect(merged.outcome).toBe('x');
    const nothing = { events: [], expected: {}, outcome: 'y' };
    expect(withLapses(nothing, found)).toBe(nothing);
    expect(withLapses(null, found)).toBeNull();
    expect(withLapses(claim, null)).toBe(claim);
  });
});

describe('the coordination fold notes the lapse', () => {
  it('a lapse stands (with what the session held) until the session shows a sign of life', () => {
    const recorded = [...holding, lapsed(A, minutes(1), ['WU-1', 'WU-2'])];
    const lapse = currentLapse(given(coordinationStateProjection, recorded).sessions.get(A)!);
    expect(lapse).toMatchObject({ seq: recorded.length, last_seen: minutes(1), lapsed_at: minutes(11), ttl_seconds: 600, held_wus: ['WU-1', 'WU-2'] });
    expect(currentLapse(given(coordinationStateProjection, [...recorded, heartbeat(A, minutes(30))]).sessions.get(A)!)).toBeNull();
  });

  it('a lapse of an unknown session is an integrity finding', () => {
    const state = given(coordinationStateProjection, [lapsed('session_z', T0, ['WU-1'])]);
    expect(state.findings).toEqual([{ seq: 1, type: 'session.lapsed', reason: 'lapse of an unknown session' }]);
  });
});
