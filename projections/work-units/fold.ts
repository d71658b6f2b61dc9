import type { BatonEvent } from '../../events/baton-event.js';
import type { Projection } from '../projection.js';
import { DEFAULT_WORK_UNITS_CONFIG, type WorkUnitsConfig } from './settings.js';
import { decodeWorkUnitsState, encodeWorkUnitsState } from './snapshot-codec.js';
import { decodePaged, encodePaged } from './paged-codec.js';
import { applyWorkUnits, initWorkUnits, type WorkUnitsState } from './state.js';

/**
 * The work-unit fold as a projection, on its own (index.ts adds the replay views over it): what
 * every work-unit command runs, without the modules of the views and their zod document schemas.
 * Replay has no probes and no config file: views use the default settings plus what the log
 * recorded (an attempt's capacity).
 */
export type ViewArgs = Readonly<Record<string, string | boolean | undefined>>;

/**
 * 2: the snapshot holds one of snapshot-codec.ts's forms (plain, or compact: one copy of each mark
 * and key list). 3: a session's `ended` is how it ended (its status), not a boolean. 4: a checkpoint
 * keeps its note, progress and next steps; a session its worktree and branch. 5: a session its agent
 * identity and role (who holds a claim, who may finish it). 6: a claim its reserved `paths`. 7: each
 * session stream's version and a session's latest recorded lapse (what a `session.lapsed` expects).
 * 8: snapshots are paged (paged-codec.ts): a read decodes only the WU records it touches.
 */
const VERSION = 8;
/**
 * Events folded past the snapshot before a new one is written: at least the runner's usual 1,000,
 * and five per WU. Writing this fold's snapshot (encoding it, JSON, the file) costs about as much as
 * folding five events per WU it holds (the wu-status bench prints both), so a run never spends more
 * on the events after its snapshot than one write would have cost, and a status run on a busy log
 * does not rewrite a large snapshot for a handful of new events.
 */
const EVENTS_PER_WU_BEFORE_SNAPSHOT = 5;
const MIN_EVENTS_BEFORE_SNAPSHOT = 1000;
export const workUnitsSnapshotEvery = (state: WorkUnitsState): number =>
  Math.max(MIN_EVENTS_BEFORE_SNAPSHOT, EVENTS_PER_WU_BEFORE_SNAPSHOT * Object.keys(state.wus).length);

/** Identity of the work-unit fold (Projection.fold): its views are folded once per run. */
const WORK_UNITS_FOLD = Object.freeze({ fold: 'work_units' });

export function workUnitsProjection<V>(name: string, view: (state: WorkUnitsState, now: string, args: ViewArgs, config: WorkUnitsConfig) => V) {
  return {
    name,
    version: VERSION,
    fold: WORK_UNITS_FOLD,
    init: initWorkUnits,
    apply: (state: WorkUnitsState, event: BatonEvent) => applyWorkUnits(state, event),
    serialize: encodeWorkUnitsState,
    deserialize: decodeWorkUnitsState,
    serializeSplit: encodePaged,
    deserializeSplit: decodePaged,
    snapshotEvery: workUnitsSnapshotEvery,
    view: (state: WorkUnitsState, now: string) => view(state, now, {}, DEFAULT_WORK_UNITS_CONFIG),
    viewWith: (state: WorkUnitsState, now: string, args: ViewArgs) => view(state, now, args, DEFAULT_WORK_UNITS_CONFIG),
  } satisfies Projection<WorkUnitsState, V> & { viewWith: unknown };
}

/** The fold every work-unit command runs (one snapshot shared by all of them). */
export const workUnitsStateProjection = workUnitsProjection('work_units', (state, now) => ({
  v: 1 as const,
  type: 'work_units',
  generated_at: now,
  wus: Object.keys(state.wus).length,
}));
