import { expect } from 'vitest';
import type { BatonEvent } from '../../events/baton-event.js';
import type { Decision, ProposedEvent } from '../../deciders/decision.js';
import { foldEvents, type Projection } from '../../projections/projection.js';
import { decoded, mustAccept } from '../helpers/decoded.js';

/** One fact of a `given`: its type, stream and data (the envelope is filled in). */
export interface Fact {
  type: string;
  stream: string;
  data: Record<string, unknown>;
  actor?: string;
  at?: string;
}

export const T0 = '2026-06-01T10:00:00.000Z';

/** Facts as the log hands them to the folds: sequenced, minute by minute from T0, decoded by the catalog (a fixture it refuses fails the test). */
export function history(facts: readonly Fact[]): BatonEvent[] {
  return facts.map((f, i) =>
    mustAccept(
      decoded({
        v: 1,
        seq: i + 1,
        id: `e${i + 1}`,
        type: f.type,
        stream: f.stream,
        at: f.at ?? new Date(Date.parse(T0) + i * 60_000).toISOString(),
        actor: f.actor ?? 'system',
        data: f.data,
        prev: '',
        hash: '',
      }),
    ),
  );
}

/** The decider's state: the projection's fold of the facts, given/when/then style. */
export function given<S, V>(projection: Projection<S, V>, facts: readonly Fact[]): S {
  return foldEvents(projection, history(facts));
}

/** How many of the facts are on `stream` (its version after them). */
export function versionOf(facts: readonly Fact[], stream: string): number {
  return facts.filter((f) => f.stream === stream).length;
}

/** The refusal a decider throws, as { code, message } (fails when it does not throw). */
export function refusalOf(decide: () => unknown): { code: string; message: string } {
  try {
    decide();
  } catch (error) {
    const e = error as { code?: string; message: string };
    return { code: e.code ?? 'NOT_A_REFUSAL', message: e.message };
  }
  throw new Error('the decider accepted the command');
}

/**
 * A decider under test, given/when/then (after Emmett's `DeciderSpecification`): the facts are
 * folded into the decider's state by `state`, the command is decided on it, and the answer is
 * checked: the events it proposes, nothing to append, or the refusal it throws.
 *
 *   const claim = specify({ decide: decideClaim, state: (facts) => ({ fold: given(projection, facts), version: versionOf(facts, stream) }) });
 *   claim.given([defined]).when({ ... }).then([{ type: 'wu.claimed', stream, data: { ... } }]);
 *   claim.given([defined]).when({ ... }).thenRefuses('UNKNOWN_ID', 'WU WU-9 not found');
 */
export interface DeciderSpec<C, S, R> {
  /** How the facts become the decider's state (a projection's fold, plus any versions). */
  state: (facts: readonly Fact[]) => S;
  decide: (command: C, state: S) => Decision<R> | null;
}

export interface WhenThen<R> {
  /** The decision proposes exactly these events (type, stream, data), in order; returns the decision. */
  then(events: readonly ProposedEvent[]): Decision<R>;
  /** The decision appends nothing (null, or no events): an idempotent repeat. */
  thenNothing(): void;
  /** The decider refuses with this code (and this message, when given); returns the refusal. */
  thenRefuses(code: string, message?: string): { code: string; message: string };
  /** The decision, unchecked, for assertions beyond the events (expected versions, outcome). */
  decision(): Decision<R> | null;
}

export interface Scenario<C, R> {
  when(command: C): WhenThen<R>;
}

export interface Specification<C, R> {
  given(facts: readonly Fact[]): Scenario<C, R>;
}

export function specify<C, S, R>(spec: DeciderSpec<C, S, R>): Specification<C, R> {
  return {
    given: (facts) => ({
      when: (command) => {
        const decide = (): Decision<R> | null => spec.decide(command, spec.state(facts));
        return {
          then(events) {
            const decision = decide();
            expect(decision?.events ?? []).toEqual(events);
            return decision!;
          },
          thenNothing() {
            expect(decide()?.events ?? []).toEqual([]);
          },
          thenRefuses(code, message) {
            const refusal = refusalOf(decide);
            expect(refusal.code).toBe(code);
            if (message !== undefined) expect(refusal.message).toBe(message);
            return refusal;
          },
          decision: decide,
        };
      },
    }),
  };
}
