import type { EventCatalog } from '../../events/catalog.js';
import { GENESIS_HASH } from '../../events/patterns.js';
import { snapshotParts, stateFromParts, type AnyProjection, type Projection, type StateOf, type ViewOf } from '../../projections/projection.js';
import { BatonError, ErrorCode, invalidInput } from '../errors.js';
import type { BatonEvent } from '../../events/baton-event.js';
import type { StoredEvent } from '../../events/envelope.js';
import type { EventStore, ReadOptions } from './contract.js';
import { bodyOf, loadSnapshot, SnapshotLoadKind, writeSnapshot, type SnapshotLoad } from './snapshots.js';

/**
 * Runs projections over a store: fold from the latest valid snapshot plus the events after it, in
 * one pass over the log for any number of projections, and leave a fresh snapshot behind.
 *
 * A snapshot is used only when its name and version match, its seq is at or before the requested
 * position, and the log still holds an event with the snapshot's hash at the snapshot's seq (so a
 * rebuilt or replaced log — another store in the same cache folder — never lends it state).
 * Anything else is reported in `snapshot` and the projection folds from scratch.
 *
 * Snapshots are written only when the run reached the head of the log: the cache holds one
 * snapshot per projection, and replacing a head snapshot with one at a past position (`replay
 * --to`) would make every later current-view run slower. A snapshot is written when the run folded
 * at least `snapshotEvery` events (the option, else the projection's own interval, else 1,000), or
 * when it replaced an unusable (corrupt or stale) one.
 */

export interface RunProjectionOptions {
  catalog: EventCatalog;
  /** Where snapshots live (`.baton/cache/`); without it every run folds from scratch, writing nothing. */
  cacheDir?: string;
  /** Last seq to fold (inclusive); default and upper bound: the head. */
  to?: number;
  /** The clock value handed to `view`. */
  now: string;
  /** Write a snapshot after folding at least this many events (default: the projection's interval, else 1000). */
  snapshotEvery?: number;
  /**
   * Where snapshots come from instead of `cacheDir` (which then only receives the ones written):
   * a long-running reader (`baton serve`) keeps its own in memory, at many positions. Each is
   * checked against the log exactly as a file snapshot is.
   */
  snapshotSource?: (name: string, version: number) => SnapshotLoad;
  /** Told the last seq folded after each chunk of the pass (a progress line counts with it). */
  onPosition?: (seq: number) => void;
}

export const DEFAULT_SNAPSHOT_EVERY = 1000;

export const SnapshotOutcome = {
  /** Folded from a valid snapshot. */
  USED: 'used',
  /** No cache folder was given. */
  DISABLED: 'disabled',
  MISSING: 'missing',
  CORRUPT: 'corrupt',
  /** Another projection version, or the log no longer holds the snapshot's event. */
  STALE: 'stale',
  /** Valid, but past the requested position (`to`): a fold cannot be undone. */
  AHEAD: 'ahead',
} as const;

export type SnapshotReport =
  | { kind: typeof SnapshotOutcome.USED; seq: number }
  | { kind: typeof SnapshotOutcome.DISABLED | typeof SnapshotOutcome.MISSING }
  | { kind: typeof SnapshotOutcome.CORRUPT | typeof SnapshotOutcome.STALE | typeof SnapshotOutcome.AHEAD; reason: string };

export interface ProjectionRun<S, V> {
  view: V;
  state: S;
  /** The position the view is as of: the last event folded (0 for the empty log). */
  seq: number;
  /** That event's hash (64 zeros for the empty log). */
  hash: string;
  from_snapshot: boolean;
  /** Events folded in this run (after the snapshot, when one was used). */
  folded: number;
  /** What became of the stored snapshot, for diagnostics. */
  snapshot: SnapshotReport;
  snapshot_written: boolean;
}

export type ProjectionRuns<P extends readonly AnyProjection[]> = { -readonly [K in keyof P]: ProjectionRun<StateOf<P[K]>, ViewOf<P[K]>> };

export async function runProjection<S, V>(store: EventStore, projection: Projection<S, V>, options: RunProjectionOptions): Promise<ProjectionRun<S, V>> {
  const [run] = await runProjections(store, [projection], options);
  return run as ProjectionRun<S, V>;
}

/** One projection's progress through the pass. */
interface Lane {
  projection: AnyProjection;
  state: unknown;
  /** Last seq folded into `state`. */
  seq: number;
  folded: number;
  snapshot: SnapshotReport;
}

/**
 * Fold several projections in ONE pass over the log (a full replay reads and parses each event
 * once, whatever the number of views). Each projection starts from its own snapshot; the pass
 * starts at the earliest of them and hands each event only to the projections that lack it.
 */
export async function runProjections<const P extends readonly AnyProjection[]>(
  store: EventStore,
  projections: P,
  options: RunProjectionOptions,
): Promise<ProjectionRuns<P>> {
  checkRunRequest(projections, options);
  if (projections.length === 0) return [] as unknown as ProjectionRuns<P>;

  // Folding to the head needs no separate look at the head: the pass reads to the committed end,
  // and the last event folded is the head the views are as of. (A JSONL head() scans the log's
  // last 256 KiB; a short command would read its log twice.) A past position (`to`) is bounded by
  // the head, which is read first.
  const head = options.to === undefined ? undefined : await store.head();
  const target = head === undefined ? undefined : Math.min(options.to!, head.seq);
  const { lanes, hashes } = await startLanes(store, projections, options.cacheDir, target, options.snapshotSource);
  const { folding, followers } = shareFolds(lanes);

  // The pass: from the earliest lane's position to the target (or the end), contiguous and chained.
  let seq = Math.min(...folding.map((l) => l.seq));
  let hash = seq === 0 ? GENESIS_HASH : hashes.get(seq)!;
  if (target === undefined || seq < target) {
    // Past the furthest snapshot every lane takes every event: fold those without per-lane checks
    // (a full replay spends most of its fold time here) and settle the lanes' counters at the end.
    const allBehindAfter = Math.max(...folding.map((l) => l.seq));
    let foldedByAll = 0;
    for await (const chunk of chunksOf(store, { from: seq + 1, ...(target !== undefined ? { to: target } : {}) })) {
      for (const stored of chunk) {
        // The store checks the chain inside a read, not across where the read starts.
        if (stored.seq !== seq + 1) throw chainBroken(seq + 1, `the store returned seq ${stored.seq}`);
        if (stored.prev !== hash) throw chainBroken(seq + 1, 'prev does not match the hash of the event before it');
        // Decoded once for every fold of the pass (the rare refused event waits for zod's words).
        const event = options.catalog.accept(stored) ?? (await refusedEvent(options.catalog, stored));
        if (stored.seq > allBehindAfter) {
          for (const lane of folding) lane.state = lane.projection.apply(lane.state, event);
          foldedByAll += 1;
        } else {
          for (const lane of folding) {
            if (lane.seq >= stored.seq) continue;
            lane.state = lane.projection.apply(lane.state, event);
            lane.seq = stored.seq;
            lane.folded += 1;
          }
        }
        seq = stored.seq;
        hash = stored.hash;
      }
      options.onPosition?.(seq);
    }
    if (foldedByAll > 0) {
      for (const lane of folding) {
        lane.seq = seq;
        lane.folded += foldedByAll;
      }
    }
  }
  for (const { lane, leader } of followers) {
    lane.state = leader.state;
    lane.seq = leader.seq;
    lane.folded = leader.folded;
  }
  if (target !== undefined && seq !== target) throw new Error(`the store ended at seq ${seq}, before the head seq ${target} it reported`);

  const atHead = head === undefined || target === head.seq;
  return lanes.map((lane) => finishLane(lane, { seq, hash }, atHead, options)) as ProjectionRuns<P>;
}

function checkRunRequest(projections: readonly AnyProjection[], options: RunProjectionOptions): void {
  if (options.snapshotEvery !== undefined && (!Number.isSafeInteger(options.snapshotEvery) || options.snapshotEvery < 1))
    throw invalidInput('must be a positive integer', 'snapshotEvery');
  if (options.to !== undefined && (!Number.isSafeInteger(options.to) || options.to < 0)) throw invalidInput('must be a non-negative integer', 'to');
  const names = new Set<string>();
  for (const p of projections) {
    if (names.has(p.name)) throw new Error(`projection ${p.name} given twice`);
    names.add(p.name);
  }
}

/**
 * A lane's run as of `end`, writing its snapshot when a run at the head folded enough past the old
 * one (or the old one was unusable).
 */
function finishLane(lane: Lane, end: { seq: number; hash: string }, atHead: boolean, options: RunProjectionOptions): ProjectionRun<unknown, unknown> {
  const { seq, hash } = end;
  let written = false;
  const replaces = lane.snapshot.kind === SnapshotOutcome.CORRUPT || lane.snapshot.kind === SnapshotOutcome.STALE;
  const every = options.snapshotEvery ?? lane.projection.snapshotEvery?.(lane.state) ?? DEFAULT_SNAPSHOT_EVERY;
  if (options.cacheDir !== undefined && atHead && lane.folded > 0 && (lane.folded >= every || replaces)) {
    const parts = snapshotParts(lane.projection, lane.state);
    written = writeSnapshot(options.cacheDir, { name: lane.projection.name, version: lane.projection.version, seq, hash, ...parts }).written;
  }
  return {
    view: lane.projection.view(lane.state, options.now),
    state: lane.state,
    seq,
    hash,
    from_snapshot: lane.snapshot.kind === SnapshotOutcome.USED,
    folded: lane.folded,
    snapshot: lane.snapshot,
    snapshot_written: written,
  };
}

/**
 * An event the catalog refuses reaches the folds marked `rejected`, with its data as stored
 * (upcast) and zod's words for the fields at fault (the schemas load only when history holds such
 * an event), to become an integrity finding: folds never throw on history.
 */
async function refusedEvent(catalog: EventCatalog, stored: StoredEvent): Promise<BatonEvent> {
  if (!catalog.schemasLoaded) await catalog.loadSchemas();
  return catalog.toBatonEvent(stored);
}

/**
 * Views over one fold (Projection.fold, same version) that start at the same position are folded
 * once: the first of them folds (`folding`) and each other one takes its state after the pass.
 */
function shareFolds(lanes: readonly Lane[]): { folding: Lane[]; followers: { lane: Lane; leader: Lane }[] } {
  const folding: Lane[] = [];
  const followers: { lane: Lane; leader: Lane }[] = [];
  for (const lane of lanes) {
    const fold = lane.projection.fold;
    const leader =
      fold === undefined
        ? undefined
        : folding.find((l) => l.projection.fold === fold && l.projection.version === lane.projection.version && l.seq === lane.seq);
    if (leader === undefined) folding.push(lane);
    else followers.push({ lane, leader });
  }
  return { folding, followers };
}

/**
 * Each projection's starting point: its snapshot when that is usable at `target` (undefined: the
 * head), else `init()` at seq 0. The log's hash at a snapshot's seq is read once per distinct seq
 * (projections run together share one), which is a point read, not a scan.
 */
async function startLanes(
  store: EventStore,
  projections: readonly AnyProjection[],
  cacheDir: string | undefined,
  target: number | undefined,
  source?: (name: string, version: number) => SnapshotLoad,
): Promise<{ lanes: Lane[]; hashes: Map<number, string | undefined> }> {
  const loads = projections.map((p) =>
    source !== undefined ? source(p.name, p.version) : cacheDir === undefined ? undefined : loadSnapshot(cacheDir, p.name, p.version),
  );
  const hashes = new Map<number, string | undefined>();
  for (const load of loads) {
    if (load?.kind !== SnapshotLoadKind.OK || (target !== undefined && load.snapshot.seq > target) || hashes.has(load.snapshot.seq)) continue;
    hashes.set(load.snapshot.seq, await hashAt(store, load.snapshot.seq));
  }
  // Only to word why a snapshot is past the end of the log (a rebuilt or replaced log).
  let headSeq: number | undefined;
  const logEnd = async (): Promise<number> => (headSeq ??= (await store.head()).seq);
  const lanes: Lane[] = [];
  for (const projection of projections) {
    const fresh = (snapshot: SnapshotReport): Lane => ({ projection, state: projection.init(), seq: 0, folded: 0, snapshot });
    const load = loads[lanes.length];
    if (load === undefined) {
      lanes.push(fresh({ kind: SnapshotOutcome.DISABLED }));
      continue;
    }
    if (load.kind === SnapshotLoadKind.MISSING) {
      lanes.push(fresh({ kind: SnapshotOutcome.MISSING }));
      continue;
    }
    if (load.kind !== SnapshotLoadKind.OK) {
      lanes.push(fresh({ kind: load.kind, reason: load.reason }));
      continue;
    }
    const snapshot = load.snapshot;
    if (target !== undefined && snapshot.seq > target) {
      const end = await logEnd();
      lanes.push(
        snapshot.seq > end
          ? fresh({ kind: SnapshotOutcome.STALE, reason: `snapshot at seq ${snapshot.seq}, but the log ends at seq ${end}` })
          : fresh({ kind: SnapshotOutcome.AHEAD, reason: `snapshot at seq ${snapshot.seq} is past the requested seq ${target}` }),
      );
      continue;
    }
    if (hashes.get(snapshot.seq) !== snapshot.hash) {
      const end = hashes.get(snapshot.seq) === undefined ? await logEnd() : undefined;
      lanes.push(
        end !== undefined && snapshot.seq > end
          ? fresh({ kind: SnapshotOutcome.STALE, reason: `snapshot at seq ${snapshot.seq}, but the log ends at seq ${end}` })
          : fresh({ kind: SnapshotOutcome.STALE, reason: `the log holds another event at seq ${snapshot.seq} (rebuilt or replaced log)` }),
      );
      continue;
    }
    let state: unknown;
    try {
      const body = typeof snapshot.body === 'string' ? bodyOf(Buffer.from(snapshot.body, 'utf8')) : snapshot.body;
      state = stateFromParts(projection, snapshot.state, body);
    } catch (error) {
      lanes.push(fresh({ kind: SnapshotOutcome.CORRUPT, reason: `state rejected by the projection: ${(error as Error).message}` }));
      continue;
    }
    lanes.push({ projection, state, seq: snapshot.seq, folded: 0, snapshot: { kind: SnapshotOutcome.USED, seq: snapshot.seq } });
  }
  return { lanes, hashes };
}

/** The hash of the event the log holds at `seq`, if any. */
async function hashAt(store: EventStore, seq: number): Promise<string | undefined> {
  for await (const event of store.read({ from: seq, to: seq })) return event.seq === seq ? event.hash : undefined;
  return undefined;
}

function chainBroken(seq: number, reason: string): BatonError {
  return new BatonError(ErrorCode.LOG_CORRUPT, `log corrupt at seq ${seq}: ${reason}`, { seq, reason });
}

/** The store's chunked read when it has one, else its event-by-event read in chunks of one. */
async function* chunksOf(store: EventStore, options: ReadOptions): AsyncIterable<readonly StoredEvent[]> {
  if (store.readChunks) {
    yield* store.readChunks(options);
    return;
  }
  for await (const event of store.read(options)) yield [event];
}
