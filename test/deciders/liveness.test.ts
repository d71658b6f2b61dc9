import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requireLiveActor } from '../../deciders/acting-session.js';
import { sessionLiveness } from '../../deciders/work-units.js';
import { holdsClaims, livenessOf, mayAct } from '../../projections/coordination/liveness.js';
import { clockOf, effectiveStatus } from '../../projections/coordination/sessions.js';
import { coordinationStateProjection } from '../../projections/coordination/roster.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import { given, refusalOf, T0, type Fact } from './given.js';

/**
 * One meaning of "live": a session may act as itself while it exists and has not ended; it holds
 * its claims only while its last heartbeat is within its TTL. Both folds keep the facts the rule
 * reads, and on any history they agree.
 */
const S = 'session_aaaaaaaaaaaaaaaaaaaaaaaa';
const O = 'session_bbbbbbbbbbbbbbbbbbbbbbbb';

/** A random session history: a start (maybe), heartbeats, facts it records, facts of others, an end (maybe). */
const step = fc.oneof(
  fc.constant<Fact>({ type: 'session.heartbeat', stream: `session/${S}`, data: { session_id: S }, actor: S }),
  fc.constant<Fact>({ type: 'note.recorded', stream: 'note/n', data: { text: 'by it' }, actor: S }),
  fc.constant<Fact>({ type: 'note.recorded', stream: 'note/n', data: { text: 'by another' }, actor: O }),
  fc
    .constantFrom('succeeded', 'failed', 'cancelled')
    .map<Fact>((status) => ({ type: 'session.ended', stream: `session/${S}`, data: { session_id: S, status }, actor: S })),
);
const history = fc.record({
  startsIt: fc.boolean(),
  ttlMinutes: fc.integer({ min: 1, max: 30 }),
  steps: fc.array(step, { maxLength: 12 }),
  minutesLater: fc.integer({ min: 0, max: 60 }),
});

describe('session liveness', () => {
  it('the two folds agree on liveness, and the two questions are asked of the one answer', () => {
    fc.assert(
      fc.property(history, ({ startsIt, ttlMinutes, steps, minutesLater }) => {
        const start: Fact = { type: 'session.started', stream: `session/${S}`, data: { session_id: S, display_name: 'Planck', ttl_seconds: ttlMinutes * 60 } };
        const facts = startsIt ? [start, ...steps] : steps;
        // Facts are a minute apart from T0 (given.ts); `now` is some minutes after the last one.
        const now = new Date(Date.parse(T0) + (facts.length + minutesLater) * 60_000).toISOString();
        const coordination = given(coordinationStateProjection, facts).sessions.get(S);
        const fromCoordination = livenessOf(coordination === undefined ? undefined : clockOf(coordination), now);
        const fromWorkUnits = sessionLiveness(given(workUnitsStateProjection, facts), S, now);
        expect(fromWorkUnits).toEqual(fromCoordination);
        // Holding claims implies acting; acting and not holding is exactly "stale" (shown as abandoned).
        if (holdsClaims(fromCoordination)) expect(mayAct(fromCoordination)).toBe(true);
        expect(mayAct(fromCoordination) && !holdsClaims(fromCoordination)).toBe(fromCoordination.kind === 'stale');
        if (coordination !== undefined) expect(effectiveStatus(coordination, now) === 'abandoned').toBe(fromCoordination.kind === 'stale');
        // The identity check refuses exactly the sessions that may not act.
        const check = () =>
          requireLiveActor(
            { session: S, clock: coordination === undefined ? undefined : clockOf(coordination) },
            [{ type: 'note.recorded', stream: 'note/n', data: { text: 'x' } }],
            now,
          );
        if (mayAct(fromCoordination)) check();
        else expect(refusalOf(check).code).toBe('UNKNOWN_SESSION');
      }),
      { numRuns: 120 },
    );
  });

  it('the TTL boundary: idle exactly the TTL is live, a millisecond more is stale', () => {
    const clock = { last_heartbeat_at: T0, ttl_seconds: 60, ended: false as const };
    expect(livenessOf(clock, new Date(Date.parse(T0) + 60_000).toISOString())).toEqual({ kind: 'live' });
    expect(livenessOf(clock, new Date(Date.parse(T0) + 60_001).toISOString())).toEqual({ kind: 'stale', idle_ms: 60_001 });
  });

  it('a batch that starts the acting session makes it live', () => {
    const starts = [{ type: 'session.started', stream: `session/${S}`, data: { session_id: S } }];
    expect(() => requireLiveActor({ session: S, clock: undefined }, starts, T0)).not.toThrow();
  });
});
