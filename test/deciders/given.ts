import type { BatonEvent } from '../../events/baton-event.js';
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
    mustAccept(decoded({ v: 1, seq: i + 1, id: `e${i + 1}`, type: f.type, stream: f.stream, at: f.at ?? new Date(Date.parse(T0) + i * 60_000).toISOString(), actor: f.actor ?? 'system', data: f.data, prev: '', hash: '' })),
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
