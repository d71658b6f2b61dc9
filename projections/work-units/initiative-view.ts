import {
  ActionType,
  compareWuIds,
  OrchestrationState,
  type ActionType as ActionTypeT,
  type OrchestrationState as StateT,
} from '../../events/work-units/terms.js';
import type { NextSafeAction, PlanDocument, StatusDocument, StatusRow } from './documents.js';
import { depsOf } from './evidence.js';
import { withRecordedSettings } from './recorded-settings.js';
import { stampYamlFindings } from './stamp-consistency.js';
import { laneSettings, type WorkUnitsConfig } from './settings.js';
import { refersTo, type IntegrityFinding, type WorkUnitsState } from './state.js';
import { DependencyCycleError, findCycle, logicalWaves } from './waves.js';
import { assessWorkspace, type WuAssessment } from './assessment.js';

export { assessWorkspace, assessWu, thresholdText, type WuAssessment } from './assessment.js';
import { isDoneById, wuSummary } from './lazy-records.js';

/**
 * The reconciled view of one initiative (work-units.md §6–§9): each member's state by the decision
 * table, capacity, lane holders, planned waves, held launches and the ordered next safe actions.
 * Pure: a function of the fold, the configuration, the clock and the CLI's capacity override.
 */
export interface InitiativeOptions {
  config: WorkUnitsConfig;
  now: string;
  /** `--max-active-workers N`. */
  maxActiveWorkers?: number | undefined;
  /** `status` only: fall back to the CLI value the latest attempt recorded. */
  useRecordedCapacity?: boolean;
  /**
   * Every defined WU assessed at this (state, config, now), from assessWorkspace: a view of many
   * initiatives (`baton status`) assesses the workspace once, not once per initiative.
   */
  assessments?: Map<string, WuAssessment> | undefined;
  /** The caller found no cycle in the whole dependency graph (findCycle over every WU): skip the check. */
  knownAcyclic?: boolean | undefined;
}

export interface InitiativeComputation {
  initiative: string;
  members: string[];
  logical_wave: Map<string, number>;
  assessments: Map<string, WuAssessment>;
  max_active_workers: number | null;
  max_active_workers_source: 'cli' | 'config' | 'default';
  available_capacity: number | null;
  blocked_by_integrity: boolean;
  /** The initiative's latest attempt, null if none. */
  launch_attempt: number | null;
  waves: PlanDocument['waves'];
  deferred: PlanDocument['deferred'];
  logical_waves: number[];
  rows: StatusRow[];
  next_safe_actions: NextSafeAction[];
  /** launch_wu and relaunch_wu actions, in action order. */
  launches: NextSafeAction[];
  integrity_findings: IntegrityFinding[];
}

const RANK: Record<ActionTypeT, number> = { recover_wu: 0, finish_wu: 1, relaunch_wu: 2, launch_wu: 3, wait: 4 };
const OCCUPYING = new Set<StateT>(['handoff_emitted', 'claimed', 'active', 'stalled', 'contaminated']);
const NOT_HOLDING = new Set<StateT>(['planned', 'eligible', 'needs_relaunch', 'done']);
const SCHEDULABLE = new Set<StateT>(['eligible', 'planned', 'needs_relaunch']);

/** The members of every initiative reference (an id or a slug), from one workspace assessment. */
const membersByRef = new WeakMap<Map<string, WuAssessment>, Map<string, string[]>>();

function membersFromAssessments(state: WorkUnitsState, assessments: Map<string, WuAssessment>, initiative: string): string[] {
  let index = membersByRef.get(assessments);
  if (index === undefined) {
    index = new Map();
    for (const id of assessments.keys()) {
      const ref = wuSummary(state, id)?.initiative ?? null;
      if (ref === null) continue;
      const list = index.get(ref);
      if (list === undefined) index.set(ref, [id]);
      else list.push(id);
    }
    membersByRef.set(assessments, index);
  }
  const slug = Object.hasOwn(state.initiatives, initiative) ? state.initiatives[initiative]!.slug : null;
  const ids = [...(index.get(initiative) ?? []), ...(slug !== null && slug !== initiative ? (index.get(slug) ?? []) : [])];
  return ids.sort(compareWuIds);
}

export function membersOf(state: WorkUnitsState, initiative: string, assessments?: Map<string, WuAssessment>): string[] {
  if (assessments !== undefined) return membersFromAssessments(state, assessments, initiative);
  // By the summaries (lazy-records.ts): finding one initiative's members decodes no record.
  return Object.keys(state.wus)
    .filter((id) => {
      const s = wuSummary(state, id)!;
      return s.defined && refersTo(state, s.initiative, initiative);
    })
    .sort(compareWuIds);
}

/** What the steps of computeInitiative share: the fold, the members, their waves and every assessment. */
interface Reconciliation {
  state: WorkUnitsState;
  config: WorkUnitsConfig;
  members: string[];
  memberSet: Set<string>;
  /** Logical wave per member (§7.1). */
  lw: Map<string, number>;
  assessments: Map<string, WuAssessment>;
}

/** Worker capacity (§7.3): the limit, where it came from, and what the occupying members leave. */
interface Capacity {
  max_active_workers: number | null;
  source: 'cli' | 'config' | 'default';
  available_capacity: number | null;
}

/** Per lane, the WUs holding it under policy `all` and under policy `active`. */
type LaneHolding = Map<string, { all: Set<string>; active: Set<string> }>;

/** Where each schedulable member goes (§7.4): deferred with a reason, or placed in a planned wave. */
interface WavePlan {
  /** The schedulable members, by logical wave then id. */
  candidates: string[];
  deferredReason: Map<string, string>;
  /** The candidates not deferred, in placement order. */
  scheduled: string[];
  placed: Map<string, number>;
  /** The members whose lane was full in wave 0. */
  laneFullAtZero: Set<string>;
}

function stateOf(r: Reconciliation, id: string): StateT {
  return r.assessments.get(id)!.decision.state;
}

/** Logical wave, then id. */
function byWaveOf(lw: Map<string, number>): (a: string, b: string) => number {
  return (a, b) => lw.get(a)! - lw.get(b)! || compareWuIds(a, b);
}

function byActionOrder(a: NextSafeAction, b: NextSafeAction): number {
  return RANK[a.type] - RANK[b.type] || a.logical_wave - b.logical_wave || compareWuIds(a.wu_id, b.wu_id);
}

export function computeInitiative(state: WorkUnitsState, initiative: string, options: InitiativeOptions): InitiativeComputation {
  const { now } = options;
  const config = withRecordedSettings(options.config, state.recorded_settings);
  const members = membersOf(state, initiative, options.assessments);
  const memberSet = new Set(members);
  const cycle = options.knownAcyclic === true ? null : findCycle(state, members);
  if (cycle !== null) throw new DependencyCycleError(cycle);
  const lw = logicalWaves(state, memberSet);
  const r: Reconciliation = { state, config, members, memberSet, lw, assessments: options.assessments ?? assessWorkspace(state, config, now) };

  const contaminated = members.filter((id) => stateOf(r, id) === OrchestrationState.contaminated);
  const blocked_by_integrity = contaminated.length > 0;
  const attempts = state.attempts[initiative] ?? [];
  const capacity = capacityOf(r, attempts, options);
  const plan = planWaves(r, capacity);
  const { waves, deferred, logical_waves } = planDocumentParts(r, plan);
  const { actions, launches, launchBlockedBy } = nextSafeActions(r, capacity, plan, contaminated);
  const rows: StatusRow[] = [...members].sort(byWaveOf(lw)).map((id) => statusRow(r, id, plan, launchBlockedBy));

  const integrity_findings = members.flatMap((id) => stampYamlFindings(state, state.wus[id]!)).sort((a, b) => a.seq - b.seq);
  const launch_attempt = attempts.length === 0 ? null : Math.max(...attempts.map((a) => a.launch_attempt));
  const { max_active_workers, source, available_capacity } = capacity;
  return {
    initiative,
    members,
    logical_wave: lw,
    assessments: r.assessments,
    max_active_workers,
    max_active_workers_source: source,
    available_capacity,
    blocked_by_integrity,
    launch_attempt,
    waves,
    deferred,
    logical_waves,
    rows,
    next_safe_actions: actions,
    launches,
    integrity_findings,
  };
}

/** Capacity (§7.3): the CLI value, else (status only) the one the latest attempt recorded, else the config's. */
function capacityOf(r: Reconciliation, attempts: WorkUnitsState['attempts'][string], options: InitiativeOptions): Capacity {
  const recordedCli = options.useRecordedCapacity ? [...attempts].reverse().find((a) => a.max_active_workers_source === 'cli') : undefined;
  let max_active_workers: number | null;
  let source: 'cli' | 'config' | 'default';
  if (options.maxActiveWorkers !== undefined) [max_active_workers, source] = [options.maxActiveWorkers, 'cli'];
  else if (recordedCli !== undefined) [max_active_workers, source] = [recordedCli.max_active_workers, 'cli'];
  else if (r.config.orchestration.max_active_workers !== null) [max_active_workers, source] = [r.config.orchestration.max_active_workers, 'config'];
  else [max_active_workers, source] = [null, 'default'];
  const occupied = r.members.filter((id) => OCCUPYING.has(stateOf(r, id))).length;
  const available_capacity = max_active_workers === null ? null : Math.max(0, max_active_workers - occupied);
  return { max_active_workers, source, available_capacity };
}

/** Lane holders, workspace-wide (§7.3), counted once per lane: policy `all` and policy `active`. */
const holdingByAssessments = new WeakMap<Map<string, WuAssessment>, LaneHolding>();

function laneHolding(assessments: Map<string, WuAssessment>): LaneHolding {
  const known = holdingByAssessments.get(assessments);
  if (known !== undefined) return known;
  const holding: LaneHolding = new Map();
  holdingByAssessments.set(assessments, holding);
  for (const a of assessments.values()) {
    const s = a.decision.state;
    if (NOT_HOLDING.has(s) || a.wu.def.lane === undefined) continue;
    let entry = holding.get(a.wu.def.lane);
    if (entry === undefined) holding.set(a.wu.def.lane, (entry = { all: new Set(), active: new Set() }));
    entry.all.add(a.wu.wu_id);
    if (s !== OrchestrationState.blocked) entry.active.add(a.wu.wu_id);
  }
  return holding;
}

/** How many WUs other than `exclude` hold the lane, under the lane's lock policy. */
function laneHolders(holding: LaneHolding, config: WorkUnitsConfig, lane: string, exclude: string): number {
  const entry = holding.get(lane);
  if (entry === undefined) return 0;
  const set = laneSettings(config, lane).lock_policy === 'active' ? entry.active : entry.all;
  return set.size - (set.has(exclude) ? 1 : 0);
}

/** Planned waves (§7.4): defer what waits on an unfinished, blocked or deferred dependency, place the rest. */
function planWaves(r: Reconciliation, capacity: Capacity): WavePlan {
  const { lw } = r;
  const candidates = r.members.filter((id) => SCHEDULABLE.has(stateOf(r, id))).sort(byWaveOf(lw));
  const deferredReason = deferralsOf(r, candidates);
  const relaunchFirst = (id: string): number => (stateOf(r, id) === OrchestrationState.needs_relaunch ? 0 : 1);
  const scheduled = candidates
    .filter((id) => !deferredReason.has(id))
    .sort((a, b) => lw.get(a)! - lw.get(b)! || relaunchFirst(a) - relaunchFirst(b) || compareWuIds(a, b));
  const { placed, laneFullAtZero } = placeInWaves(r, scheduled, capacity);
  return { candidates, deferredReason, scheduled, placed, laneFullAtZero };
}

/** Each candidate's reason to wait, if any: its first dependency not done, blocked or itself deferred. */
function deferralsOf(r: Reconciliation, candidates: string[]): Map<string, string> {
  const { state, memberSet } = r;
  const deferredReason = new Map<string, string>();
  for (const id of candidates) {
    for (const d of depsOf(state.wus[id]!)) {
      let reason: string | undefined;
      if (!memberSet.has(d)) reason = isDoneById(state, d) ? undefined : `Waiting for ${d} to complete.`;
      else if (stateOf(r, d) === OrchestrationState.blocked) reason = `Waiting for ${d} (blocked).`;
      else if (deferredReason.has(d)) reason = `Waiting for ${d} (deferred).`;
      if (reason !== undefined) {
        deferredReason.set(id, reason);
        break;
      }
    }
  }
  return deferredReason;
}

/**
 * Each scheduled WU goes to the first wave after its unfinished dependencies where neither its lane
 * (WIP limit, counting the lane's current holders in wave 0) nor worker capacity is full.
 */
function placeInWaves(r: Reconciliation, scheduled: string[], capacity: Capacity): { placed: Map<string, number>; laneFullAtZero: Set<string> } {
  const { state, config, memberSet } = r;
  const { max_active_workers, available_capacity } = capacity;
  const holding = laneHolding(r.assessments);
  const placed = new Map<string, number>();
  const perWave = new Map<number, number>();
  /** Per lane, the WUs placed in each wave (index = wave). */
  const perLaneWave = new Map<string, number[]>();
  const laneFullAtZero = new Set<string>();
  for (const id of scheduled) {
    const wu = state.wus[id]!;
    let lb = 0;
    for (const d of depsOf(wu)) {
      if (!memberSet.has(d) || isDoneById(state, d)) continue;
      const k = placed.get(d);
      lb = Math.max(lb, k === undefined ? 1 : k + 1);
    }
    const lane = wu.def.lane ?? '';
    const { lock_policy, wip_limit } = laneSettings(config, lane);
    const holders = laneHolders(holding, config, lane, id);
    let laneWaves = perLaneWave.get(lane);
    if (laneWaves === undefined) perLaneWave.set(lane, (laneWaves = []));
    let k = lb;
    for (;;) {
      const laneFull = lock_policy !== 'none' && (laneWaves[k] ?? 0) + (k === 0 ? holders : 0) >= wip_limit;
      const capFull = max_active_workers !== null && max_active_workers > 0 && (perWave.get(k) ?? 0) >= (k === 0 ? available_capacity! : max_active_workers);
      if (k === 0 && laneFull) laneFullAtZero.add(id);
      if (!laneFull && !capFull) break;
      k++;
    }
    placed.set(id, k);
    perWave.set(k, (perWave.get(k) ?? 0) + 1);
    laneWaves[k] = (laneWaves[k] ?? 0) + 1;
  }
  return { placed, laneFullAtZero };
}

/** The plan as the plan document lists it: the planned waves, the deferred WUs and the logical waves listed. */
function planDocumentParts(r: Reconciliation, plan: WavePlan): Pick<PlanDocument, 'waves' | 'deferred'> & { logical_waves: number[] } {
  const { state, lw } = r;
  const { scheduled, placed, candidates, deferredReason } = plan;
  // The WUs of each planned wave, in id order (one pass, not a scan of every WU per wave).
  const byPlannedWave = new Map<number, string[]>();
  for (const id of scheduled) {
    const k = placed.get(id)!;
    const ids = byPlannedWave.get(k);
    if (ids === undefined) byPlannedWave.set(k, [id]);
    else ids.push(id);
  }
  const waveNumbers = [...byPlannedWave.keys()].sort((a, b) => a - b);
  const waves = waveNumbers.map((k) => {
    const ids = byPlannedWave.get(k)!.sort(compareWuIds);
    const lws = [...new Set(ids.map((id) => lw.get(id)!))].sort((a, b) => a - b);
    return {
      planned_wave: k,
      logical_wave: lws[0]!,
      logical_waves: lws,
      wus: ids.map((id) => ({ id, lane: state.wus[id]!.def.lane ?? '', logical_wave: lw.get(id)! })),
    };
  });
  const deferred = candidates.filter((id) => deferredReason.has(id)).map((id) => ({ wu_id: id, reason: deferredReason.get(id)! }));
  const listed = [...scheduled, ...deferredReason.keys()];
  const logical_waves = [...new Set(listed.map((id) => lw.get(id)!))].sort((a, b) => a - b);
  return { waves, deferred, logical_waves };
}

/**
 * Held launches (§8.1) and the actions (§8.2): each unfinished member's action, a launch held by
 * integrity, its lane or capacity, and one `wait` for every WU queued by capacity.
 */
function nextSafeActions(
  r: Reconciliation,
  capacity: Capacity,
  plan: WavePlan,
  contaminated: string[],
): { actions: NextSafeAction[]; launches: NextSafeAction[]; launchBlockedBy: Map<string, ('integrity' | 'capacity' | 'lane')[]> } {
  const { state, config, lw } = r;
  const launchBlockedBy = new Map<string, ('integrity' | 'capacity' | 'lane')[]>();
  const actions: NextSafeAction[] = [];
  const queued: string[] = [];
  for (const id of r.members) {
    const a = r.assessments.get(id)!;
    const { decision } = a;
    const wave = lw.get(id)!;
    if (decision.state === OrchestrationState.done) continue;
    const push = (type: ActionTypeT, reason: string): void => void actions.push({ type, wu_id: id, reason, logical_wave: wave });
    if (decision.state !== OrchestrationState.eligible && decision.state !== OrchestrationState.needs_relaunch) {
      push(decision.action!, decision.reason!);
      continue;
    }
    const lane = state.wus[id]!.def.lane ?? '';
    if (decision.state === OrchestrationState.needs_relaunch && a.values.unmet_deps.length > 0) {
      push(ActionType.wait, `Waiting for ${a.values.unmet_deps.join(', ')} to complete.`);
    } else if (contaminated.length > 0) {
      launchBlockedBy.set(id, ['integrity']);
      push(ActionType.wait, `Launch held until integrity is restored (recover ${contaminated.join(', ')} first).`);
    } else if (capacity.max_active_workers === 0) {
      launchBlockedBy.set(id, ['capacity']);
      queued.push(id);
    } else if (plan.placed.get(id) === 0) {
      push(decision.action!, decision.reason!);
    } else if (plan.laneFullAtZero.has(id)) {
      launchBlockedBy.set(id, ['lane']);
      push(ActionType.wait, `Lane ${lane} is at its WIP limit (${laneSettings(config, lane).wip_limit}).`);
    } else {
      launchBlockedBy.set(id, ['capacity']);
      queued.push(id);
    }
  }
  const launches = actions.filter((x) => x.type === ActionType.launch_wu || x.type === ActionType.relaunch_wu);
  if (queued.length > 0) actions.push(queuedAction(r, plan.scheduled, queued, capacity.available_capacity, launches.length));
  actions.sort(byActionOrder);
  launches.sort(byActionOrder);
  return { actions, launches, launchBlockedBy };
}

/** The one `wait` for the WUs queued by capacity, in placement order (sorts `queued` in place). */
function queuedAction(r: Reconciliation, scheduled: string[], queued: string[], available_capacity: number | null, launching: number): NextSafeAction {
  const { lw } = r;
  const order = new Map(scheduled.map((id, i) => [id, i]));
  const byWave = byWaveOf(lw);
  queued.sort((a, b) => (order.get(a) ?? Number.MAX_SAFE_INTEGER) - (order.get(b) ?? Number.MAX_SAFE_INTEGER) || byWave(a, b));
  const remaining = Math.max(0, (available_capacity ?? 0) - launching);
  return {
    type: ActionType.wait,
    wu_id: queued[0]!,
    reason: `Queued until worker capacity frees (remaining capacity: ${remaining}).`,
    logical_wave: Math.min(...queued.map((id) => lw.get(id)!)),
    wu_ids: queued,
  };
}

/** One member's row of the status document. */
function statusRow(r: Reconciliation, id: string, plan: WavePlan, launchBlockedBy: Map<string, ('integrity' | 'capacity' | 'lane')[]>): StatusRow {
  const { wu, values, decision } = r.assessments.get(id)!;
  const blockedBy = launchBlockedBy.get(id) ?? [];
  return {
    wu_id: id,
    title: wu.def.title ?? id,
    lane: wu.def.lane ?? null,
    orchestration_state: decision.state,
    yaml_status: wu.yaml_status,
    logical_wave: r.lw.get(id)!,
    planned_wave: plan.placed.get(id) ?? null,
    launch_attempt: wu.handoff?.launch_attempt ?? null,
    claimed_mode: values.recorded_mode,
    contamination_paths: values.overlap,
    queued_by_capacity: blockedBy.length === 1 && blockedBy[0] === 'capacity',
    launch_blocked_by: blockedBy,
    blockers: [...values.unmet_deps, ...(values.blocked && wu.blocked?.reason ? [wu.blocked.reason] : [])],
    last_activity_at: values.last_activity_at,
    worktree_path: values.worktree_path,
  };
}

export function statusDocument(c: InitiativeComputation, now: string): StatusDocument {
  return {
    initiative: c.initiative,
    launch_attempt: c.launch_attempt,
    generated_at: now,
    logical_waves: [...new Set(c.rows.map((r) => r.logical_wave))].sort((a, b) => a - b),
    available_capacity: c.available_capacity,
    max_active_workers: c.max_active_workers,
    blocked_by_integrity: c.blocked_by_integrity,
    integrity_findings: c.integrity_findings.map((f) => ({ ...f })),
    next_safe_actions: c.next_safe_actions,
    wus: c.rows,
  };
}

export function planDocument(c: InitiativeComputation, launchAttempt: number, now: string): PlanDocument {
  return {
    initiative: c.initiative,
    launch_attempt: launchAttempt,
    generated_at: now,
    max_active_workers: c.max_active_workers,
    logical_waves: c.logical_waves,
    waves: c.waves,
    deferred: c.deferred,
  };
}
