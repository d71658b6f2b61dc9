import { compareWuIds, ORCHESTRATION_STATES, OrchestrationState } from '../../events/work-units/terms.js';
import { decide } from './decision-table.js';
import { evidenceValues, stallSeconds, type EvidenceContext } from './evidence.js';
import type { WorkUnitsConfig } from './settings.js';
import { wuSummary } from './lazy-records.js';
import { initiativeOf, refersTo, type IntegrityFinding, type Mark, type WorkUnitsState, type WuRecord } from './state.js';

/**
 * `wu list | show` and `initiative list | show`: each WU's definition and its
 * orchestration state by the decision table (§6.2), over the log as recorded. Pure: a function of
 * the fold, the settings and the clock. No probe runs here (`orchestrate status` observes).
 */
export interface WuListRow {
  wu_id: string;
  /** The WU's `initiative` field as recorded (an id or a slug), null when it has none. */
  initiative: string | null;
  title: string;
  lane: string | null;
  wu_type: string;
  priority: string;
  yaml_status: string | null;
  orchestration_state: OrchestrationState;
  dependencies: string[];
  /** LumenFlow's other dependency list: a list row names both, as `wu show` does. */
  blocked_by: string[];
}

export interface WuFilter {
  /** An initiative id: its members (by id or slug). */
  initiative?: string | undefined;
  state?: OrchestrationState | undefined;
  /** Compared with the WU's lane after trimming both. */
  lane?: string | undefined;
}

export interface WuDetail extends WuListRow {
  description: string;
  acceptance: string[];
  code_paths: string[];
  blocks: string[];
  /** The decision-table row (1–13) and its reason. */
  rule: number;
  reason: string | null;
  claim: { seq: number; at: string; session_id: string | null; mode: string; worktree_path: string | null; branch: string | null } | null;
  last_checkpoint: { seq: number; at: string; actor: string; summary: string; note: string; progress: string | null; next_steps: string | null } | null;
  /** The WU was read from a YAML file: `yaml_status` is the status that file says. */
  has_yaml: boolean;
  blocked_reason: string | null;
  stamped: { seq: number; completed_date: string; stamp_path: string } | null;
  last_activity_at: string | null;
  integrity_findings: IntegrityFinding[];
}

export interface InitiativeRow {
  initiative: string;
  title: string;
  slug: string | null;
  lanes: string[];
  wus: number;
  /** WUs per orchestration state, only the states that occur, in decision-table order. */
  by_state: Partial<Record<OrchestrationState, number>>;
}

export interface InitiativeDetail extends InitiativeRow {
  /** Its latest launch attempt, null before the first `orchestrate run`. */
  launch_attempt: number | null;
  members: WuListRow[];
}

interface Assessor {
  ctx: EvidenceContext;
  threshold: string;
}

function assessorOf(state: WorkUnitsState, config: WorkUnitsConfig, now: string): Assessor {
  return { ctx: { state, config, now, stall_seconds: stallSeconds(config) }, threshold: config.orchestration.stall_threshold };
}

function rowOf(wu: WuRecord, a: Assessor): { row: WuListRow; decision: ReturnType<typeof decide>; values: ReturnType<typeof evidenceValues> } {
  const values = evidenceValues(wu, a.ctx);
  const decision = decide(wu, values, a.ctx.now, a.threshold);
  const d = wu.def;
  return {
    row: {
      wu_id: wu.wu_id,
      initiative: d.initiative ?? null,
      title: d.title ?? wu.wu_id,
      lane: d.lane ?? null,
      wu_type: d.type ?? 'feature',
      priority: d.priority ?? 'P2',
      yaml_status: wu.yaml_status,
      orchestration_state: decision.state,
      dependencies: [...(d.dependencies ?? [])],
      blocked_by: [...(d.blocked_by ?? [])],
    },
    decision,
    values,
  };
}

function definedWus(state: WorkUnitsState): WuRecord[] {
  return Object.values(state.wus)
    .filter((wu) => wu.defined)
    .sort((a, b) => compareWuIds(a.wu_id, b.wu_id));
}

/**
 * The defined WUs a filter may keep, in id order, ruled out by their summaries first
 * (lazy-records.ts): a list of one initiative, one lane or the WUs in a state other than `done`
 * decodes only the records it may show. A WU is `done` exactly when it is DONE (the table's first row).
 */
function candidates(state: WorkUnitsState, initiative: string | undefined, lane: string | undefined, wanted: OrchestrationState | undefined): WuRecord[] {
  const ids: string[] = [];
  for (const id of Object.keys(state.wus)) {
    const s = wuSummary(state, id)!;
    if (!s.defined) continue;
    if (initiative !== undefined && !refersTo(state, s.initiative, initiative)) continue;
    if (lane !== undefined && s.lane?.trim() !== lane) continue;
    if (wanted !== undefined && (wanted === OrchestrationState.done) !== s.done) continue;
    ids.push(id);
  }
  return ids.sort(compareWuIds).map((id) => state.wus[id]!);
}

/** Whether any WU names `initiative` (by id, or by the slug of a recorded initiative). */
export function initiativeIsKnown(state: WorkUnitsState, initiative: string): boolean {
  if (Object.hasOwn(state.initiatives, initiative)) return true;
  return Object.keys(state.wus).some((id) => {
    const s = wuSummary(state, id)!;
    return s.defined && refersTo(state, s.initiative, initiative);
  });
}

/** The recorded initiative an id or a slug names, else the text itself. */
export function resolveInitiativeRef(state: WorkUnitsState, ref: string): string {
  if (Object.hasOwn(state.initiatives, ref)) return ref;
  return Object.hasOwn(state.slugs, ref) ? state.slugs[ref]! : ref;
}

export function listWus(state: WorkUnitsState, config: WorkUnitsConfig, now: string, filter: WuFilter = {}): WuListRow[] {
  const a = assessorOf(state, config, now);
  const lane = filter.lane?.trim();
  const rows: WuListRow[] = [];
  for (const wu of candidates(state, filter.initiative, lane, filter.state)) {
    const { row } = rowOf(wu, a);
    if (filter.state !== undefined && row.orchestration_state !== filter.state) continue;
    rows.push(row);
  }
  return rows;
}

const markOf = (m: Mark): { seq: number; at: string; actor: string; summary: string } => ({ seq: m.seq, at: m.at, actor: m.actor, summary: m.summary });

/** Null when the log holds no definition of the WU. */
export function showWu(state: WorkUnitsState, wuId: string, config: WorkUnitsConfig, now: string): WuDetail | null {
  const wu = Object.hasOwn(state.wus, wuId) ? state.wus[wuId]! : undefined;
  if (wu === undefined || !wu.defined) return null;
  const { row, decision, values } = rowOf(wu, assessorOf(state, config, now));
  const d = wu.def;
  const claim = wu.claim !== null && wu.claim.seq >= wu.window_start ? wu.claim : null;
  const checkpoint = wu.checkpoint !== null && wu.checkpoint.seq >= wu.window_start ? wu.checkpoint : null;
  return {
    ...row,
    description: d.description ?? '',
    acceptance: [...(d.acceptance ?? [])],
    code_paths: [...(d.code_paths ?? [])],
    blocks: [...(d.blocks ?? [])],
    rule: decision.rule,
    reason: decision.reason,
    claim:
      claim === null
        ? null
        : { seq: claim.seq, at: claim.at, session_id: claim.session_id, mode: claim.mode, worktree_path: claim.worktree_path, branch: claim.branch },
    last_checkpoint:
      checkpoint === null ? null : { ...markOf(checkpoint), note: checkpoint.note, progress: checkpoint.progress, next_steps: checkpoint.next_steps },
    has_yaml: wu.yaml_content_hash !== null,
    blocked_reason: values.blocked ? (wu.blocked?.reason ?? d.blocked_reason ?? null) : null,
    stamped: wu.stamped === null ? null : { seq: wu.stamped.seq, completed_date: wu.stamped.completed_date, stamp_path: wu.stamped.stamp_path },
    last_activity_at: values.last_activity_at,
    integrity_findings: [...wu.findings].sort((x, y) => x.seq - y.seq),
  };
}

function countByState(rows: readonly WuListRow[]): Partial<Record<OrchestrationState, number>> {
  const counts = new Map<OrchestrationState, number>();
  for (const r of rows) counts.set(r.orchestration_state, (counts.get(r.orchestration_state) ?? 0) + 1);
  const out: Partial<Record<OrchestrationState, number>> = {};
  for (const s of ORCHESTRATION_STATES) if (counts.has(s)) out[s] = counts.get(s)!;
  return out;
}

/** Every recorded initiative, in id order, with its WUs counted by state (one pass over the WUs). */
export function listInitiatives(state: WorkUnitsState, config: WorkUnitsConfig, now: string): InitiativeRow[] {
  const a = assessorOf(state, config, now);
  const members = new Map<string, WuListRow[]>();
  for (const wu of definedWus(state)) {
    const id = initiativeOf(state, wu);
    if (id === null || !Object.hasOwn(state.initiatives, id)) continue;
    const list = members.get(id) ?? [];
    list.push(rowOf(wu, a).row);
    members.set(id, list);
  }
  return Object.keys(state.initiatives)
    .sort(compareInitiativeIds)
    .map((id) => initiativeRow(state, id, members.get(id) ?? []));
}

function initiativeRow(state: WorkUnitsState, id: string, rows: readonly WuListRow[]): InitiativeRow {
  const rec = state.initiatives[id]!;
  return { initiative: id, title: rec.title, slug: rec.slug, lanes: [...rec.lanes], wus: rows.length, by_state: countByState(rows) };
}

/** Null when no initiative is recorded under that id or slug. */
export function showInitiative(state: WorkUnitsState, ref: string, config: WorkUnitsConfig, now: string): InitiativeDetail | null {
  const id = resolveInitiativeRef(state, ref);
  if (!Object.hasOwn(state.initiatives, id)) return null;
  const rows = listWus(state, config, now, { initiative: id });
  const attempts = state.attempts[id] ?? [];
  return {
    ...initiativeRow(state, id, rows),
    launch_attempt: attempts.length === 0 ? null : Math.max(...attempts.map((x) => x.launch_attempt)),
    members: rows,
  };
}

/** INIT ids by their number when both have one (INIT-2 before INIT-10), else as text. */
function compareInitiativeIds(a: string, b: string): number {
  const na = /^INIT-(\d+)$/.exec(a);
  const nb = /^INIT-(\d+)$/.exec(b);
  if (na !== null && nb !== null && Number(na[1]) !== Number(nb[1])) return Number(na[1]) - Number(nb[1]);
  return a < b ? -1 : a > b ? 1 : 0;
}
