import type { BatonEvent } from '../events/baton-event.js';

/**
 * A projection: a pure fold from the log to a view. No I/O, no clock — `now` is an argument of
 * `view`, so a view is a function of (a prefix of the log, a clock value) and replaying to any
 * position gives what the engine saw then.
 *
 * State rules (the snapshot runner relies on them):
 * - The state must survive a JSON round trip: either it is plain JSON (objects, arrays, strings,
 *   finite numbers, booleans, null — no `undefined`, Map, Set, Date, class instances), or the
 *   projection supplies `serialize`/`deserialize` that turn it into such a value and back.
 *   Folding from a deserialised snapshot must give byte-identical views to folding from scratch.
 * - `apply` may update the state it is given in place and return it: the fold owns that state and
 *   never looks at it again (copying on every event would make a 1,000,000-event replay quadratic).
 *   It must not mutate the event, and must not throw on history: an event today's rules reject is
 *   recorded in the state as a finding, not crashed on.
 * - Bump `version` whenever the state's shape or meaning changes: snapshots of another version are
 *   ignored and the state is rebuilt from the log.
 */
export interface Projection<S, V> {
  /** Unique, `[a-z][a-z0-9_]*`: also the snapshot's file name. */
  readonly name: string;
  readonly version: number;
  init(): S;
  apply(state: S, event: BatonEvent): S;
  view(state: S, now: string): V;
  /**
   * Projections that are views over one fold (the same init, apply, serialize and version) carry
   * the same `fold` value, compared by identity: a run folds such a family once and hands every
   * member the same state (views must only read it). Omitted: the projection is its own fold.
   */
  readonly fold?: object;
  /** State → JSON value, when the state holds something JSON cannot (a Set, a Map). */
  serialize?(state: S): unknown;
  /** JSON value → state; may throw on a malformed value (the snapshot is then ignored). */
  deserialize?(json: unknown): S;
  /**
   * A state too large to parse whole on every run: a snapshot of a JSON head (parsed on load) and a
   * body of bytes the state decodes as it is read. When given, snapshots are written this way.
   */
  serializeSplit?(state: S): { head: unknown; body: string };
  /** Head and body back to a state; may throw on a malformed head (the snapshot is then ignored). */
  deserializeSplit?(head: unknown, body: SnapshotBody): S;
  /**
   * How many events a run must fold past its snapshot before the runner writes a new one, for a
   * fold whose snapshot costs much more to write than a thousand events cost to fold (the runner's
   * default). Given the state, so it can grow with what a write costs. A runner option overrides it.
   */
  snapshotEvery?(state: S): number;
}

/** A split snapshot's body as a state reads it: its length in bytes, and the text of a byte range (UTF-8). */
export interface SnapshotBody {
  readonly length: number;
  text(start: number, end: number): string;
}

/**
 * Any projection, for registries and multi-projection runs. (Method syntax above makes the
 * parameters bivariant, so every `Projection<S, V>` is assignable to this.)
 */
export type AnyProjection = Projection<unknown, unknown>;

export type StateOf<P> = P extends Projection<infer S, unknown> ? S : never;
export type ViewOf<P> = P extends Projection<infer _S, infer V> ? V : never;

/** Pure fold of `events` into `state` (default: a fresh `init()`). The state passed in is consumed. */
export function foldEvents<S, V>(projection: Projection<S, V>, events: Iterable<BatonEvent>, state: S = projection.init()): S {
  let current = state;
  for (const event of events) current = projection.apply(current, event);
  return current;
}

/** The state as a JSON value (what a snapshot stores). */
export function serializeState<S, V>(projection: Projection<S, V>, state: S): unknown {
  return projection.serialize ? projection.serialize(state) : state;
}

/** The state back from a JSON value. Throws when the projection rejects the value. */
export function deserializeState<S, V>(projection: Projection<S, V>, json: unknown): S {
  return projection.deserialize ? projection.deserialize(json) : (json as S);
}

/** What a snapshot of the state stores: its JSON value, or a head and a body (Projection.serializeSplit). */
export function snapshotParts<S, V>(projection: Projection<S, V>, state: S): { state: unknown; body?: string } {
  if (projection.serializeSplit === undefined) return { state: serializeState(projection, state) };
  const { head, body } = projection.serializeSplit(state);
  return { state: head, body };
}

/** The state from a snapshot's parts. Throws when the projection rejects them. */
export function stateFromParts<S, V>(projection: Projection<S, V>, state: unknown, body: SnapshotBody | undefined): S {
  if (body === undefined) return deserializeState(projection, state);
  if (projection.deserializeSplit === undefined) throw new Error(`projection ${projection.name} does not read a snapshot with a body`);
  return projection.deserializeSplit(state, body);
}
