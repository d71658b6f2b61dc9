import type { EventCatalog } from '../../events/catalog.js';
import type { StoredEvent } from '../../events/envelope.js';
import { flowProjection } from '../../projections/flow/index.js';
import { logStatsProjection } from '../../projections/log-stats.js';
import { serializeState, type AnyProjection } from '../../projections/projection.js';
import { rosterProjection } from '../../projections/coordination/roster.js';
import { lastStoppingPointProjection, sessionsViewProjection, viewContextFrom, type LastStoppingPointState } from '../../projections/tasks/projections.js';
import type { TasksState } from '../../projections/tasks/state.js';
import { resumeEnvelope } from '../../projections/tasks/views.js';
import { initiativeStatusProjection } from '../../projections/work-units/index.js';
import type { WorkUnitsState } from '../../projections/work-units/state.js';
import { isBatonError } from '../errors.js';
import { positionAtTime, projectionForView, replayViewOf, type ReplayViewArgs } from '../app/replay-view.js';
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
const VIEWED: readonly AnyProjection[] = [
  initiativeStatusProjection,
  rosterProjection,
  sessionsViewProjection,
  flowProjection,
  logStatsProjection,
] as unknown as AnyProjection[];

/**
 * The same folds with a view that computes nothing: the runner computes `view` for every
 * projection it runs, and the dashboard computes the views it shows itself (with their arguments).
 */
const FOLDS: readonly AnyProjection[] = VIEWED.map((projection) => ({ ...projection, view: () => null }));

/** The page's tabs, and the folds (by name in FOLDS) each one's views are over. */
export const DASHBOARD_TABS = ['initiatives', 'agents', 'signals', 'flows', 'log'] as const;
export type DashboardTab = (typeof DASHBOARD_TABS)[number];
const ALL_TABS: readonly DashboardTab[] = DASHBOARD_TABS;
const TAB_FOLDS: Readonly<Record<DashboardTab, readonly string[]>> = {
  initiatives: ['initiative_status', 'roster'],
  // The last stopping point is over the tasks and the work-unit folds (lastStoppingPointRun).
  agents: ['roster', 'sessions', 'initiative_status'],
  signals: ['roster'],
  flows: ['flow'],
  log: ['log_stats'],
};

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
  /** Events between background checkpoints (default: the log's length / 64, at least 1,000). */
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
  /** The runs of the last fold, by position. */
  private lastRuns: { seq: number; runs: Runs } | undefined;
  private subscription: Subscription | undefined;
  private readonly listeners = new Set<(headSeq: number) => void>();
  private spacing: number | undefined;
  private closed = false;
  private checkpointsDone = false;
  /** Views being computed for pages right now. */
  private busy = 0;
  private lastActivity = performance.now();
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
    // The log as it is, read in chunks (a subscription's catch-up delivers one event at a time),
    // then a subscription from the next seq: nothing is missed in between.
    const chunks = this.store.readChunks ? this.store.readChunks({}) : singles(this.store.read({}));
    for await (const chunk of chunks) for (const event of chunk) this.noteEvent(event.seq, event.at);
    const subscription = this.store.subscribe(
      this.headSeq() + 1,
      (event) => {
        this.noteEvent(event.seq, event.at);
        for (const listener of this.listeners) listener(event.seq);
      },
      { onError },
    );
    this.subscription = subscription;
    await subscription.caughtUp;
    this.spacing ??= Math.max(1000, Math.ceil(this.headSeq() / 64));
    // The head is folded before the server says it is up, so the first page needs no long fold.
    const head = this.headSeq();
    if (head > 0) await this.fold(head, this.ats[head]!);
    // The quiet period before background work counts from here: a browser is about to be pointed at it.
    this.touch();
  }

  private noteEvent(seq: number, at: string): void {
    this.ats[seq] = at;
    // Each command has its own clock, so times can step back: the time axis spans min to max.
    if (this.earliest === null || at < this.earliest) this.earliest = at;
    if (this.latest === null || at > this.latest) this.latest = at;
  }

  /** How far the background checkpoints have come (for `/api/status`). */
  progress(): { checkpoints: number; checkpoints_done: boolean } {
    return { checkpoints: this.checkpoints.length, checkpoints_done: this.checkpointsDone };
  }

  /**
   * Lay the checkpoints up to the current head, one after the other (each folds `spacing` events).
   * Pages come first: a step starts only when no view is being computed, so the first page of a
   * freshly started server does not wait behind a pass over the whole log.
   */
  async buildCheckpoints(): Promise<void> {
    const spacing = this.spacing ?? 1000;
    for (let seq = spacing; seq <= this.headSeq() && !this.closed; seq += spacing) {
      if (this.checkpoints.some((c) => c.seq === seq)) continue;
      await this.idle(this.checkpoints.length === 0 ? 1000 : 150);
      this.checkpoints.push(checkpointOf(await this.fold(seq, this.ats[seq]!)));
      this.checkpoints.sort((a, b) => a.seq - b.seq);
    }
    this.checkpointsDone = true;
  }

  /** A page asked for something (an asset, a view): the background work steps aside for a moment. */
  touch(): void {
    this.lastActivity = performance.now();
  }

  /**
   * Resolves when no view is being computed and the pages have been quiet for a moment (longer
   * before the first step: a browser opening the printed URL loads the page first). Each step holds
   * the event loop while it folds and serializes, so it must not land in the middle of a page load.
   */
  private async idle(quietMs: number): Promise<void> {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (this.closed || (this.busy === 0 && performance.now() - this.lastActivity >= quietMs)) return;
    }
  }

  /** Runs `compute` counted as a page's work (the background checkpoints wait for it). */
  private async serving<T>(compute: () => Promise<T>): Promise<T> {
    this.busy += 1;
    this.touch();
    try {
      return await compute();
    } finally {
      this.busy -= 1;
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
  view(name: string, position: Position, args: ReplayViewArgs): Promise<unknown> {
    return this.serving(() => this.computeView(name, position, args));
  }

  private async computeView(name: string, position: Position, args: ReplayViewArgs): Promise<unknown> {
    const projection = projectionForView(name);
    if (projection === undefined) return errorEnvelope(position.as_of, 'INVALID_INPUT', `unknown view "${name}"`);
    const run = runFor(await this.fold(position.seq, position.as_of), projection);
    if (run === undefined) return errorEnvelope(position.as_of, 'INVALID_INPUT', `view "${name}" is not shown by the dashboard`);
    return viewOrError(projection, run.state, position.as_of, { ...args, ...this.replayArgs });
  }

  /**
   * The views of one tab of the page (all of them without `tab`), as of a position: the folds they
   * need, then the views of `replay` over them.
   */
  dashboard(position: Position, tab?: DashboardTab): Promise<Record<string, unknown>> {
    return this.serving(() => this.computeDashboard(position, tab));
  }

  private async computeDashboard(position: Position, tab?: DashboardTab): Promise<Record<string, unknown>> {
    const wanted = tab === undefined ? ALL_TABS : [tab];
    const runs = await this.fold(position.seq, position.as_of, [...new Set(wanted.flatMap((t) => TAB_FOLDS[t]))]);
    const asOf = position.as_of;
    const args = this.replayArgs;
    const of = (name: string, extra: ReplayViewArgs = {}): Promise<unknown> => {
      const projection = projectionForView(name)!;
      const run = runFor(runs, projection)!;
      return viewOrError(projection, run.state, asOf, { ...extra, ...args });
    };
    const views: Record<string, unknown> = {};
    const has = (t: DashboardTab): boolean => wanted.includes(t);
    if (has('initiatives') || has('agents') || has('signals')) views['roster'] = await of('roster', { include_stale: true });
    if (has('initiatives')) {
      const workUnits = runFor(runs, initiativeStatusProjection as unknown as AnyProjection)!.state as WorkUnitsState;
      views['initiatives'] = await Promise.all(
        Object.keys(workUnits.initiatives)
          .sort()
          .map((id) => of('initiative_status', { target: id })),
      );
    }
    if (has('agents')) {
      const sessions = (await of('sessions')) as { sessions?: { id: string }[] };
      const ids = (sessions.sessions ?? []).map((s) => s.id);
      const tasksState = runFor(runs, sessionsViewProjection as unknown as AnyProjection)!.state as TasksState;
      const context = viewContextFrom(args, asOf);
      views['sessions'] = sessions;
      views['session_details'] = Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await of('session', { session_id: id })] as const)));
      // `baton resume ID` of each session: its own last stopping point's next action.
      views['resume'] = Object.fromEntries(ids.map((id) => [id, resumeEnvelope(tasksState, context, id, false)] as const));
      views['status'] = await of('last_stopping_point');
    }
    if (has('signals')) {
      const inbox = (await of('inbox', { all: true })) as { signals?: { recipients?: string[] }[] };
      // Per-reader receipts: the inbox of each recipient, every signal (`replay --view inbox --for R --all`).
      const readers = [...new Set((inbox.signals ?? []).flatMap((s) => s.recipients ?? []))].sort();
      views['inbox'] = inbox;
      views['inbox_by_reader'] = Object.fromEntries(
        await Promise.all(readers.map(async (reader) => [reader, await of('inbox', { for: reader, all: true })] as const)),
      );
      views['convergence'] = await of('convergence');
    }
    if (has('flows')) views['flow'] = await of('flow');
    if (has('log')) views['log_stats'] = await of('log_stats');
    return { v: 1, type: 'dashboard', generated_at: asOf, position, tab: tab ?? null, ...views };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.subscription?.close();
  }

  /** The folds named (default: all) as of `seq`, from the latest checkpoint at or before it. */
  private async fold(seq: number, now: string, names?: readonly string[]): Promise<Runs> {
    const folds = names === undefined ? FOLDS : FOLDS.filter((p) => names.includes(p.name));
    // The same position again (a page reloaded, another tab, the live head unchanged): the states
    // folded last time. Views only read them, and a fold never starts from them (checkpoints are
    // parsed afresh), so nothing ever changes them.
    const last = this.lastRuns;
    if (last !== undefined && last.seq === seq && folds.every((p) => last.runs.has(p.name))) return last.runs;
    const start = this.startingPoint(seq);
    const source = (name: string, version: number): SnapshotLoad => {
      const text = start?.states.get(name);
      if (start === undefined || text === undefined) return { kind: SnapshotLoadKind.MISSING };
      return { kind: SnapshotLoadKind.OK, snapshot: { name, version, seq: start.seq, hash: start.hash, state: JSON.parse(text) as unknown } };
    };
    const list = (await runProjections(this.store, folds, { catalog: this.catalog, now, to: seq, snapshotSource: source })) as unknown as ProjectionRun<
      unknown,
      unknown
    >[];
    const runs: Runs = new Map(folds.map((p, i) => [p.name, list[i]!] as const));
    this.lastRuns = { seq, runs };
    // Following the head: the next fold starts here. (A past position keeps to the spaced checkpoints.)
    if (folds.length === FOLDS.length && seq === this.headSeq() && seq > 0 && (start === undefined || start.seq !== seq)) this.recent = checkpointOf(runs);
    return runs;
  }

  private startingPoint(seq: number): Checkpoint | undefined {
    let best: Checkpoint | undefined;
    for (const c of this.checkpoints) if (c.seq <= seq && (best === undefined || c.seq > best.seq)) best = c;
    if (this.recent !== undefined && this.recent.seq <= seq && (best === undefined || this.recent.seq > best.seq)) best = this.recent;
    return best;
  }
}

/** Each fold's run by its name. */
type Runs = ReadonlyMap<string, ProjectionRun<unknown, unknown>>;

function checkpointOf(runs: Runs): Checkpoint {
  const states = new Map<string, string>();
  for (const projection of FOLDS) states.set(projection.name, JSON.stringify(serializeState(projection, runs.get(projection.name)!.state)));
  const first = runs.get(FOLDS[0]!.name)!;
  return { seq: first.seq, hash: first.hash, states };
}

/** The run whose fold a view is over: its own, or the one of the same fold and version. */
function runFor(runs: Runs, projection: AnyProjection): ProjectionRun<unknown, unknown> | undefined {
  if (projection.name === lastStoppingPointProjection.name) return lastStoppingPointRun(runs);
  const fold = FOLDS.find((p) => p.name === projection.name || (p.fold !== undefined && p.fold === projection.fold && p.version === projection.version));
  return fold === undefined ? undefined : runs.get(fold.name);
}

/**
 * The last stopping point folds the tasks fold and the work-unit fold side by side (its state is
 * `{ tasks, work_units }`, each applied by the same function as those folds): the two states the
 * dashboard already folded are that state, without folding and holding both a second time.
 */
function lastStoppingPointRun(runs: Runs): ProjectionRun<unknown, unknown> {
  const tasks = runFor(runs, sessionsViewProjection as unknown as AnyProjection)!;
  const workUnits = runFor(runs, initiativeStatusProjection as unknown as AnyProjection)!;
  return { ...tasks, state: { tasks: tasks.state as TasksState, work_units: workUnits.state as WorkUnitsState } satisfies LastStoppingPointState };
}

async function viewOrError(projection: AnyProjection, state: unknown, asOf: string, args: ReplayViewArgs): Promise<unknown> {
  try {
    return await replayViewOf(projection, state, asOf, args, () => projection.view(state, asOf));
  } catch (error) {
    if (isBatonError(error)) return errorEnvelope(asOf, error.code, error.message);
    throw error;
  }
}

function errorEnvelope(now: string, code: string, message: string): { v: 1; type: 'error'; generated_at: string; code: string; message: string } {
  return { v: 1, type: 'error', generated_at: now, code, message };
}

async function* singles(events: AsyncIterable<StoredEvent>): AsyncIterable<readonly StoredEvent[]> {
  for await (const event of events) yield [event];
}
