import type { EventCatalog } from '../../events/catalog.js';
import { flowProjection } from '../../projections/flow/index.js';
import { logStatsProjection } from '../../projections/log-stats.js';
import { serializeState, type AnyProjection } from '../../projections/projection.js';
import { rosterProjection } from '../../projections/coordination/roster.js';
import { lastStoppingPointProjection, sessionsViewProjection, viewContextFrom } from '../../projections/tasks/projections.js';
import type { TasksState } from '../../projections/tasks/state.js';
import { resumeEnvelope } from '../../projections/tasks/views.js';
import { initiativeStatusProjection } from '../../projections/work-units/index.js';
import type { WorkUnitsState } from '../../projections/work-units/state.js';
import { isBatonError } from '../errors.js';
import { positionAtTime, projectionForView, replayViewOf, type ReplayViewArgs } from '../cli/replay-view.js';
import type { EventStore, Subscription } from '../store/contract.js';
import { runProjections, type ProjectionRun } from '../store/projection-runner.js';
import { SnapshotLoadKind, type SnapshotLoad } from '../store/snapshots.js';

/**
 * Every view of the dashboard as of any position of the log, computed exactly as `replay --view
 * NAME --to N` computes it (replay-view.ts): the same projections, the same runner, the same clock
 * (the time of the position's last event), the same view arguments.
 *
 * Speed comes from snapshots kept in memory: the runner takes one as its starting point
 * (`snapshotSource`), checks it against the log as it checks a file snapshot, and folds only the
 * events after it. Checkpoints are laid every `spacing` events (in the background, after start)
 * plus one at the last position asked for, so following the head folds only the new events.
 */

/** One projection per fold: the views over a fold are computed from its state (as the runner shares folds). */
const FOLDS: readonly AnyProjection[] = [initiativeStatusProjection, rosterProjection, sessionsViewProjection, lastStoppingPointProjection, flowProjection, logStatsProjection] as unknown as AnyProjection[];

export interface Position {
  /** The last event folded (0: the empty log). */
  seq: number;
  /** The clock of the views: the time of event `seq` (live: the server's clock). */
  as_of: string;
  /** The event's time (null for seq 0). */
  at: string | null;
  head_seq: number;
  live: boolean;
}

export type PositionQuery = { live: true } | { to: number } | { at: string };

interface Checkpoint {
  seq: number;
  hash: string;
  /** Each fold's state as JSON text: parsing it back gives the runner a state of its own to fold into. */
  states: Map<string, string>;
}

export interface DashboardViewsOptions {
  store: EventStore;
  catalog: EventCatalog;
  /** The arguments `replay` adds for the tasks views (install dir, resume invocation, store path…). */
  replayArgs: ReplayViewArgs;
  /** The clock of the live views. */
  clock: () => string;
  /** Events between background checkpoints (default: the log's length / 32, at least 2,000). */
  spacing?: number;
}

export class DashboardViews {
  private readonly store: EventStore;
  private readonly catalog: EventCatalog;
  private readonly replayArgs: ReplayViewArgs;
  private readonly clock: () => string;
  /** The time of every event, by seq (index 0 unused): positions by time without reading the log. */
  private readonly ats: string[] = [''];
  private readonly checkpoints: Checkpoint[] = [];
  private recent: Checkpoint | undefined;
  private subscription: Subscription | undefined;
  private readonly listeners = new Set<(headSeq: number) => void>();
  private spacing: number | undefined;
  private closed = false;
  private earliest: string | null = null;
  private latest: string | null = null;

  constructor(options: DashboardViewsOptions) {
    this.store = options.store;
    this.catalog = options.catalog;
    this.replayArgs = options.replayArgs;
    this.clock = options.clock;
    this.spacing = options.spacing;
  }

  /** Follow the log from its first event; resolves once every event that exists now is known. */
  async start(onError: (error: unknown) => void): Promise<void> {
    const subscription = this.store.subscribe(
      1,
      (event) => {
        this.ats[event.seq] = event.at;
        // Each command has its own clock, so times can step back: the time axis spans min to max.
        if (this.earliest === null || event.at < this.earliest) this.earliest = event.at;
        if (this.latest === null || event.at > this.latest) this.latest = event.at;
        for (const listener of this.listeners) listener(event.seq);
      },
      { onError },
    );
    this.subscription = subscription;
    await subscription.caughtUp;
    this.spacing ??= Math.max(2000, Math.ceil(this.headSeq() / 32));
  }

  /** Lay the checkpoints up to the current head, one after the other (each folds `spacing` events). */
  async buildCheckpoints(): Promise<void> {
    const spacing = this.spacing ?? 2000;
    for (let seq = spacing; seq <= this.headSeq() && !this.closed; seq += spacing) {
      if (this.checkpoints.some((c) => c.seq === seq)) continue;
      const runs = await this.fold(seq, this.ats[seq]!);
      if (runs.length > 0) this.checkpoints.push(checkpointOf(runs));
      this.checkpoints.sort((a, b) => a.seq - b.seq);
    }
  }

  onAppend(listener: (headSeq: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The earliest and the latest event time, for the scrubber's time axis. */
  span(): { first_at: string | null; last_at: string | null } {
    return { first_at: this.earliest, last_at: this.latest };
  }

  headSeq(): number {
    return this.ats.length - 1;
  }

  /** Resolve a query to a position, as `replay --to` / `--at` do; `live` is the head on the server's clock. */
  async position(query: PositionQuery): Promise<Position> {
    const head = this.headSeq();
    if ('live' in query) return { seq: head, as_of: this.clock(), at: head === 0 ? null : this.ats[head]!, head_seq: head, live: true };
    let seq: number;
    let asOf: string;
    if ('to' in query) {
      seq = Math.min(query.to, head);
      // replay --to N past the head: the clock is the command's (no event at N).
      asOf = seq === query.to && seq > 0 ? this.ats[seq]! : this.clock();
    } else {
      asOf = query.at;
      // The rule of replay --at, over the times held in memory instead of a read of the log.
      seq = await positionAtTime(this.timesUpTo(head), Date.parse(query.at));
    }
    return { seq, as_of: asOf, at: seq === 0 ? null : this.ats[seq]!, head_seq: head, live: false };
  }

  private *timesUpTo(head: number): Iterable<{ seq: number; at: string }> {
    for (let seq = 1; seq <= head; seq++) yield { seq, at: this.ats[seq]! };
  }

  /** One view (any replay view name) as of a position: the envelope `replay --view` prints. */
  async view(name: string, position: Position, args: ReplayViewArgs): Promise<unknown> {
    const projection = projectionForView(name);
    if (projection === undefined) return errorEnvelope(position.as_of, 'INVALID_INPUT', `unknown view "${name}"`);
    const run = runFor(await this.fold(position.seq, position.as_of), projection);
    if (run === undefined) return errorEnvelope(position.as_of, 'INVALID_INPUT', `view "${name}" is not shown by the dashboard`);
    return viewOrError(projection, run.state, projection.view(run.state, position.as_of), position.as_of, { ...args, ...this.replayArgs });
  }

  /** Every view the dashboard shows, as of a position: one fold, the views of `replay` over it. */
  async dashboard(position: Position): Promise<Record<string, unknown>> {
    const runs = await this.fold(position.seq, position.as_of);
    const asOf = position.as_of;
    const args = this.replayArgs;
    const of = (name: string, extra: ReplayViewArgs = {}): Promise<unknown> => {
      const projection = projectionForView(name)!;
      const run = runFor(runs, projection)!;
      return viewOrError(projection, run.state, projection.view(run.state, asOf), asOf, { ...extra, ...args });
    };
    const workUnits = runFor(runs, initiativeStatusProjection as unknown as AnyProjection)!.state as WorkUnitsState;
    const initiatives = await Promise.all(Object.keys(workUnits.initiatives).sort().map((id) => of('initiative_status', { target: id })));
    const sessions = (await of('sessions')) as { sessions?: { id: string }[] };
    const ids = (sessions.sessions ?? []).map((s) => s.id);
    const tasksState = runFor(runs, sessionsViewProjection as unknown as AnyProjection)!.state as TasksState;
    const context = viewContextFrom(args, asOf);
    const inbox = (await of('inbox', { all: true })) as { signals?: { recipients?: string[] }[] };
    // Per-reader receipts: the inbox of each recipient, every signal (`replay --view inbox --for R --all`).
    const readers = [...new Set((inbox.signals ?? []).flatMap((s) => s.recipients ?? []))].sort();
    return {
      v: 1,
      type: 'dashboard',
      generated_at: asOf,
      position,
      initiatives,
      roster: await of('roster', { include_stale: true }),
      sessions,
      session_details: Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await of('session', { session_id: id })] as const))),
      // `baton resume ID` of each session: its own last stopping point's next action.
      resume: Object.fromEntries(ids.map((id) => [id, resumeEnvelope(tasksState, context, id, false)] as const)),
      status: await of('last_stopping_point'),
      inbox,
      inbox_by_reader: Object.fromEntries(await Promise.all(readers.map(async (reader) => [reader, await of('inbox', { for: reader, all: true })] as const))),
      convergence: await of('convergence'),
      flow: await of('flow'),
      log_stats: await of('log_stats'),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.subscription?.close();
  }

  /** The folds as of `seq`, from the latest checkpoint at or before it. */
  private async fold(seq: number, now: string): Promise<ProjectionRun<unknown, unknown>[]> {
    const start = this.startingPoint(seq);
    const source = (name: string, version: number): SnapshotLoad => {
      const text = start?.states.get(name);
      if (start === undefined || text === undefined) return { kind: SnapshotLoadKind.MISSING };
      return { kind: SnapshotLoadKind.OK, snapshot: { name, version, seq: start.seq, hash: start.hash, state: JSON.parse(text) as unknown } };
    };
    const runs = (await runProjections(this.store, FOLDS, { catalog: this.catalog, now, to: seq, snapshotSource: source })) as unknown as ProjectionRun<unknown, unknown>[];
    if (runs.length > 0 && runs[0]!.seq === seq && seq > 0 && (start === undefined || start.seq !== seq)) this.recent = checkpointOf(runs);
    return runs;
  }

  private startingPoint(seq: number): Checkpoint | undefined {
    let best: Checkpoint | undefined;
    for (const c of this.checkpoints) if (c.seq <= seq && (best === undefined || c.seq > best.seq)) best = c;
    if (this.recent !== undefined && this.recent.seq <= seq && (best === undefined || this.recent.seq > best.seq)) best = this.recent;
    return best;
  }
}

function checkpointOf(runs: readonly ProjectionRun<unknown, unknown>[]): Checkpoint {
  const states = new Map<string, string>();
  FOLDS.forEach((projection, i) => states.set(projection.name, JSON.stringify(serializeState(projection, runs[i]!.state))));
  return { seq: runs[0]!.seq, hash: runs[0]!.hash, states };
}

/** The run whose fold a view is over: its own, or the one of the same fold and version. */
function runFor(runs: readonly ProjectionRun<unknown, unknown>[], projection: AnyProjection): ProjectionRun<unknown, unknown> | undefined {
  const i = FOLDS.findIndex((p) => p.name === projection.name || (p.fold !== undefined && p.fold === projection.fold && p.version === projection.version));
  return i < 0 ? undefined : runs[i];
}

async function viewOrError(projection: AnyProjection, state: unknown, view: unknown, asOf: string, args: ReplayViewArgs): Promise<unknown> {
  try {
    return await replayViewOf(projection, state, view, asOf, args);
  } catch (error) {
    if (isBatonError(error)) return errorEnvelope(asOf, error.code, error.message);
    throw error;
  }
}

function errorEnvelope(now: string, code: string, message: string): { v: 1; type: 'error'; generated_at: string; code: string; message: string } {
  return { v: 1, type: 'error', generated_at: now, code, message };
}
