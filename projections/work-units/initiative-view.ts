import { ActionType, compareWuIds, OrchestrationState, type ActionType as ActionTypeT, type OrchestrationState as StateT } from '../../events/work-units/terms.js';
import { decide, type Decision } from './decision-table.js';
import type { NextSafeAction, PlanDocument, StatusDocument, StatusRow } from './documents.js';
import { depsOf, evidenceOf, evidenceValues, isDone, stallSeconds, valuesOf, type EvidenceContext, type WuEvidence, type WuValues } from './evidence.js';
import { laneSettings, type WorkUnitsConfig } from './settings.js';
import { isMember, type IntegrityFinding, type WorkUnitsState, type WuRecord } from './state.js';
import { DependencyCycleError, findCycle, logicalWaves } from './waves.js';

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
}

export interface WuAssessment {
  wu: WuRecord;
  /** The predicate values the decision read. */
  values: WuValues;
  decision: Decision;
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

export function thresholdText(config: WorkUnitsConfig): string {
  return config.orchestration.stall_threshold;
}

/** One WU's state by the decision table, with the events behind each predicate (for `wu explain`). */
export function assessWu(
  state: WorkUnitsState,
  wu: WuRecord,
  config: WorkUnitsConfig,
  now: string,
  ctx: EvidenceContext = { state, config, now, stall_seconds: stallSeconds(config) },
): WuAssessment & { evidence: WuEvidence } {
  const evidence = evidenceOf(wu, ctx);
  const values = valuesOf(evidence);
  return { wu, evidence, values, decision: decide(wu, values, now, thresholdText(config)) };
}

/** assessWu without the events: what a view of every WU needs (evidenceValues, not evidenceOf). */
function assessValues(wu: WuRecord, ctx: EvidenceContext, threshold: string): WuAssessment {
  const values = evidenceValues(wu, ctx);
  return { wu, values, decision: decide(wu, values, ctx.now, threshold) };
}

export function membersOf(state: WorkUnitsState, initiative: string): string[] {
  return Object.values(state.wus)
    .filter((wu) => wu.defined && isMember(state, wu, initiative))
    .map((wu) => wu.wu_id)
    .sort(compareWuIds);
}

export function computeInitiative(state: WorkUnitsState, initiative: string, options: InitiativeOptions): InitiativeComputation {
  const { config, now } = options;
  const members = membersOf(state, initiative);
  const memberSet = new Set(members);
  const cycle = findCycle(state, members);
  if (cycle !== null) throw new DependencyCycleError(cycle);
  const lw = logicalWaves(state, memberSet);

  // Every defined WU of the workspace is assessed: lane holders are workspace-wide (§7.3).
  const assessments = new Map<string, WuAssessment>();
  const ctx: EvidenceContext = { state, config, now, stall_seconds: stallSeconds(config) };
  const threshold = thresholdText(config);
  for (const wu of Object.values(state.wus)) if (wu.defined) assessments.set(wu.wu_id, assessValues(wu, ctx, threshold));
  const stateOf = (id: string): StateT => assessments.get(id)!.decision.state;

  const contaminated = members.filter((id) => stateOf(id) === OrchestrationState.contaminated);
  const blocked_by_integrity = contaminated.length > 0;

  // Capacity (§7.3).
  const attempts = state.attempts[initiative] ?? [];
  const recordedCli = options.useRecordedCapacity ? [...attempts].reverse().find((a) => a.max_active_workers_source === 'cli') : undefined;
  let max_active_workers: number | null;
  let source: 'cli' | 'config' | 'default';
  if (options.maxActiveWorkers !== undefined) [max_active_workers, source] = [options.maxActiveWorkers, 'cli'];
  else if (recordedCli !== undefined) [max_active_workers, source] = [recordedCli.max_active_workers, 'cli'];
  else if (config.orchestration.max_active_workers !== null) [max_active_workers, source] = [config.orchestration.max_active_workers, 'config'];
  else [max_active_workers, source] = [null, 'default'];
  const occupied = members.filter((id) => OCCUPYING.has(stateOf(id))).length;
  const available_capacity = max_active_workers === null ? null : Math.max(0, max_active_workers - occupied);

  // Lane holders, workspace-wide (§7.3), counted once per lane: policy `all` and policy `active`.
  const holding = new Map<string, { all: Set<string>; active: Set<string> }>();
  for (const a of assessments.values()) {
    const s = a.decision.state;
    if (NOT_HOLDING.has(s) || a.wu.def.lane === undefined) continue;
    let entry = holding.get(a.wu.def.lane);
    if (entry === undefined) holding.set(a.wu.def.lane, (entry = { all: new Set(), active: new Set() }));
    entry.all.add(a.wu.wu_id);
    if (s !== OrchestrationState.blocked) entry.active.add(a.wu.wu_id);
  }
  const holders = (lane: string, exclude: string): number => {
    const entry = holding.get(lane);
    if (entry === undefined) return 0;
    const set = laneSettings(config, lane).lock_policy === 'active' ? entry.active : entry.all;
    return set.size - (set.has(exclude) ? 1 : 0);
  };

  // Planned waves (§7.4).
  const byWave = (a: string, b: string): number => lw.get(a)! - lw.get(b)! || compareWuIds(a, b);
  const candidates = members.filter((id) => SCHEDULABLE.has(stateOf(id))).sort(byWave);
  const deferredReason = new Map<string, string>();
  for (const id of candidates) {
    for (const d of depsOf(state.wus[id]!)) {
      let reason: string | undefined;
      if (!memberSet.has(d)) reason = isDone(state.wus[d]) ? undefined : `Waiting for ${d} to complete.`;
      else if (stateOf(d) === OrchestrationState.blocked) reason = `Waiting for ${d} (blocked).`;
      else if (deferredReason.has(d)) reason = `Waiting for ${d} (deferred).`;
      if (reason !== undefined) {
        deferredReason.set(id, reason);
        break;
      }
    }
  }
  const relaunchFirst = (id: string): number => (stateOf(id) === OrchestrationState.needs_relaunch ? 0 : 1);
  const scheduled = candidates
    .filter((id) => !deferredReason.has(id))
    .sort((a, b) => lw.get(a)! - lw.get(b)! || relaunchFirst(a) - relaunchFirst(b) || compareWuIds(a, b));
  const placed = new Map<string, number>();
  const perWave = new Map<number, number>();
  /** Per lane, the WUs placed in each wave (index = wave). */
  const perLaneWave = new Map<string, number[]>();
  const laneFullAtZero = new Set<string>();
  for (const id of scheduled) {
    const wu = state.wus[id]!;
    let lb = 0;
    for (const d of depsOf(wu)) {
      if (!memberSet.has(d) || isDone(state.wus[d])) continue;
      const k = placed.get(d);
      lb = Math.max(lb, k === undefined ? 1 : k + 1);
    }
    const lane = wu.def.lane ?? '';
    const { lock_policy, wip_limit } = laneSettings(config, lane);
    const laneHolders = holders(lane, id);
    let laneWaves = perLaneWave.get(lane);
    if (laneWaves === undefined) perLaneWave.set(lane, (laneWaves = []));
    let k = lb;
    for (;;) {
      const laneFull = lock_policy !== 'none' && (laneWaves[k] ?? 0) + (k === 0 ? laneHolders : 0) >= wip_limit;
      const capFull =
        max_active_workers !== null && max_active_workers > 0 && (perWave.get(k) ?? 0) >= (k === 0 ? available_capacity! : max_active_workers);
      if (k === 0 && laneFull) laneFullAtZero.add(id);
      if (!laneFull && !capFull) break;
      k++;
    }
    placed.set(id, k);
    perWave.set(k, (perWave.get(k) ?? 0) + 1);
    laneWaves[k] = (laneWaves[k] ?? 0) + 1;
  }
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

  // Held launches (§8.1) and the actions (§8.2).
  const launchBlockedBy = new Map<string, ('integrity' | 'capacity' | 'lane')[]>();
  const actions: NextSafeAction[] = [];
  const queued: string[] = [];
  for (const id of members) {
    const a = assessments.get(id)!;
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
    } else if (blocked_by_integrity) {
      launchBlockedBy.set(id, ['integrity']);
      push(ActionType.wait, `Launch held until integrity is restored (recover ${contaminated.join(', ')} first).`);
    } else if (max_active_workers === 0) {
      launchBlockedBy.set(id, ['capacity']);
      queued.push(id);
    } else if (placed.get(id) === 0) {
      push(decision.action!, decision.reason!);
    } else if (laneFullAtZero.has(id)) {
      launchBlockedBy.set(id, ['lane']);
      push(ActionType.wait, `Lane ${lane} is at its WIP limit (${laneSettings(config, lane).wip_limit}).`);
    } else {
      launchBlockedBy.set(id, ['capacity']);
      queued.push(id);
    }
  }
  const launches = actions.filter((x) => x.type === ActionType.launch_wu || x.type === ActionType.relaunch_wu);
  if (queued.length > 0) {
    const order = new Map(scheduled.map((id, i) => [id, i]));
    queued.sort((a, b) => (order.get(a) ?? Number.MAX_SAFE_INTEGER) - (order.get(b) ?? Number.MAX_SAFE_INTEGER) || byWave(a, b));
    const remaining = Math.max(0, (available_capacity ?? 0) - launches.length);
    actions.push({
      type: ActionType.wait,
      wu_id: queued[0]!,
      reason: `Queued until worker capacity frees (remaining capacity: ${remaining}).`,
      logical_wave: Math.min(...queued.map((id) => lw.get(id)!)),
      wu_ids: queued,
    });
  }
  actions.sort((a, b) => RANK[a.type] - RANK[b.type] || a.logical_wave - b.logical_wave || compareWuIds(a.wu_id, b.wu_id));
  launches.sort((a, b) => RANK[a.type] - RANK[b.type] || a.logical_wave - b.logical_wave || compareWuIds(a.wu_id, b.wu_id));

  const rows: StatusRow[] = [...members].sort(byWave).map((id) => {
    const { wu, values, decision } = assessments.get(id)!;
    const blockedBy = launchBlockedBy.get(id) ?? [];
    return {
      wu_id: id,
      title: wu.def.title ?? id,
      lane: wu.def.lane ?? null,
      orchestration_state: decision.state,
      yaml_status: wu.yaml_status,
      logical_wave: lw.get(id)!,
      planned_wave: placed.get(id) ?? null,
      launch_attempt: wu.handoff?.launch_attempt ?? null,
      claimed_mode: values.recorded_mode,
      contamination_paths: values.overlap,
      queued_by_capacity: blockedBy.length === 1 && blockedBy[0] === 'capacity',
      launch_blocked_by: blockedBy,
      blockers: [...values.unmet_deps, ...(values.blocked && wu.blocked?.reason ? [wu.blocked.reason] : [])],
      last_activity_at: values.last_activity_at,
      worktree_path: values.worktree_path,
    };
  });

  const integrity_findings = members.flatMap((id) => state.wus[id]!.findings).sort((a, b) => a.seq - b.seq);
  const launch_attempt = attempts.length === 0 ? null : Math.max(...attempts.map((a) => a.launch_attempt));
  return {
    initiative, members, logical_wave: lw, assessments, max_active_workers, max_active_workers_source: source, available_capacity, blocked_by_integrity,
    launch_attempt, waves, deferred, logical_waves, rows, next_safe_actions: actions, launches, integrity_findings,
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
