import { compareWuIds, isTerminalYamlStatus, isWorktreeMode, type ClaimedMode } from '../../events/work-units/vocabulary.js';
import { overlappingPaths } from './code-paths.js';
import { durationSeconds, type WorkUnitsConfig } from './settings.js';
import type { Mark, WorkUnitsState, WuRecord } from './state.js';

/**
 * The derived evidence of work-units.md §5.3 for one WU, over a log prefix and a clock. Each
 * predicate carries the seqs of the events that fixed its value, for `wu explain`.
 */
export interface Fact<T> {
  value: T;
  /** The events that fixed the value, in seq order. */
  evidence: Mark[];
}

export interface WuEvidence {
  stamped: Fact<boolean>;
  DONE: Fact<boolean>;
  handed_off: Fact<boolean>;
  claimed: Fact<boolean>;
  mode: Fact<ClaimedMode>;
  worktree_path: Fact<string | null>;
  branch: Fact<string | null>;
  wt_present: Fact<boolean>;
  br_present: Fact<boolean>;
  workspace_present: Fact<boolean>;
  returned: Fact<boolean>;
  executing: Fact<boolean>;
  blocked: Fact<boolean>;
  past_eligible: Fact<boolean>;
  overlap: Fact<string[]>;
  last_activity_at: Fact<string | null>;
  inactive: Fact<boolean>;
  deps_done: Fact<boolean>;
  /** Unmet dependencies, numeric order. */
  unmet_deps: string[];
  /** The claimed mode as recorded (claim, handoff, YAML), null when none is. */
  recorded_mode: ClaimedMode | null;
}

export interface EvidenceContext {
  state: WorkUnitsState;
  config: WorkUnitsConfig;
  now: string;
  /** Stall threshold in seconds (the config's unless an attempt recorded another). */
  stall_seconds: number;
}

const fact = <T>(value: T, ...marks: (Mark | null | undefined)[]): Fact<T> => {
  const bySeq = new Map<number, Mark>();
  for (const m of marks) if (m !== null && m !== undefined) bySeq.set(m.seq, m);
  return { value, evidence: [...bySeq.values()].sort((a, b) => a.seq - b.seq) };
};

const inWindow = (wu: WuRecord, mark: Mark | null): boolean => mark !== null && mark.seq >= wu.window_start;

/** deps(W) = blocked_by ∪ dependencies, deduplicated, numeric order (§3.1). */
export function depsOf(wu: WuRecord): string[] {
  return [...new Set([...(wu.def.blocked_by ?? []), ...(wu.def.dependencies ?? [])])].filter((d) => d !== wu.wu_id).sort(compareWuIds);
}

export function isStamped(wu: WuRecord | undefined): boolean {
  if (wu === undefined) return false;
  return wu.stamped !== null || (wu.stamp_file !== null && wu.stamp_file.present && wu.stamp_file.valid);
}

/** DONE (§5.3): stamped, or the YAML status is terminal. An unknown WU never is. */
export function isDone(wu: WuRecord | undefined): boolean {
  if (wu === undefined) return false;
  return isStamped(wu) || (wu.yaml_status !== null && isTerminalYamlStatus(wu.yaml_status));
}

export function stallSeconds(config: WorkUnitsConfig): number {
  return durationSeconds(config.orchestration.stall_threshold) ?? 4 * 3600;
}

export function evidenceOf(wu: WuRecord, ctx: EvidenceContext, options: { assumePastEligible?: boolean } = {}): WuEvidence {
  const { state, config, now } = ctx;
  const stampMark = wu.stamped ?? (wu.stamp_file?.present && wu.stamp_file.valid ? wu.stamp_file : null);
  const stamped = fact(isStamped(wu), stampMark);
  const yamlTerminal = wu.yaml_status !== null && isTerminalYamlStatus(wu.yaml_status);
  const DONE = fact(stamped.value || yamlTerminal, ...(stamped.value ? stamped.evidence : []), yamlTerminal ? wu.yaml_status_mark : null);

  const handoff = inWindow(wu, wu.handoff) ? wu.handoff : null;
  const claim = inWindow(wu, wu.claim) ? wu.claim : null;
  const pickup = inWindow(wu, wu.pickup) ? wu.pickup : null;
  const yamlClaimed = wu.yaml_status === 'in_progress' || wu.yaml_status === 'blocked';
  const claimed = fact(yamlClaimed || pickup !== null, yamlClaimed ? wu.yaml_status_mark : null, pickup);
  const handed_off = fact(handoff !== null, handoff);

  const recorded_mode = (claim?.mode ?? handoff?.claimed_mode ?? wu.def.claimed_mode ?? null) as ClaimedMode | null;
  const mode = fact<ClaimedMode>(recorded_mode ?? config.orchestration.default_claim_mode, claim ?? handoff ?? (wu.def.claimed_mode ? wu.def_seq['claimed_mode'] : null));

  const wtSource = claim?.worktree_path ? claim : handoff?.worktree_path ? handoff : null;
  const yamlWt = yamlClaimed && wu.def.worktree_path !== undefined ? wu.def.worktree_path : null;
  const worktree_path = fact<string | null>(wtSource?.worktree_path ?? yamlWt, wtSource ?? (yamlWt !== null ? wu.def_seq['worktree_path'] : null));
  const wtObs = worktree_path.value !== null && Object.hasOwn(wu.worktrees, worktree_path.value) ? wu.worktrees[worktree_path.value]! : null;

  const brSource = claim?.branch ? claim : handoff?.branch ? handoff : null;
  const yamlBr = yamlClaimed && wu.def.claimed_branch !== undefined ? wu.def.claimed_branch : null;
  const branchValue = brSource?.branch ?? yamlBr ?? wtObs?.branch ?? null;
  const branch = fact<string | null>(branchValue, brSource ?? (yamlBr !== null ? wu.def_seq['claimed_branch'] : wtObs));
  const brObs = branch.value !== null && Object.hasOwn(wu.branches, branch.value) ? wu.branches[branch.value]! : null;

  const wt_present = fact(wtObs?.present === true, wtObs);
  const br_present = fact(brObs?.present === true, brObs);
  const worktreeMode = isWorktreeMode(mode.value);
  const workspace_present = fact(worktreeMode ? wt_present.value : br_present.value, ...(worktreeMode ? wt_present.evidence : br_present.evidence), ...mode.evidence);

  const returnedMark = inWindow(wu, wu.returned) ? wu.returned : null;
  const returned = fact(returnedMark !== null, returnedMark);
  const checkpoint = inWindow(wu, wu.checkpoint) && wu.checkpoint!.seq > (wu.claimed_true_seq ?? 0) ? wu.checkpoint : null;
  const executing = fact(workspace_present.value || checkpoint !== null, ...(workspace_present.value ? workspace_present.evidence : []), checkpoint);
  const blocked = fact(wu.yaml_status === 'blocked', wu.yaml_status === 'blocked' ? wu.yaml_status_mark : null);
  const past = handed_off.value || claimed.value || returned.value || workspace_present.value;
  const past_eligible = fact(past, ...handed_off.evidence, ...claimed.evidence, ...returned.evidence, ...workspace_present.evidence);

  const dirty = state.dirty === null ? [] : state.dirty.paths.filter((p) => !config.orchestration.contamination_ignore.some((g) => overlappingPaths([p], [g]).length > 0));
  const overlapValue = worktreeMode && (past || options.assumePastEligible === true) ? overlappingPaths(dirty, wu.def.code_paths ?? []) : [];
  const overlap = fact(overlapValue, overlapValue.length > 0 ? state.dirty : null, overlapValue.length > 0 ? wu.def_seq['code_paths'] : null);

  // last_activity_at: the latest activity in the window, or the claimant's heartbeat.
  const activities: Mark[] = [claim, inWindow(wu, wu.checkpoint) ? wu.checkpoint : null, inWindow(wu, wu.unblock) ? wu.unblock : null, pickup, inWindow(wu, wu.signal) ? wu.signal : null, inWindow(wu, wu.yaml_claimed_at) ? wu.yaml_claimed_at : null].filter(
    (m): m is Mark => m !== null,
  );
  let latest: Mark | null = null;
  for (const m of activities) if (latest === null || Date.parse(m.at) > Date.parse(latest.at)) latest = m;
  let lastAt = latest?.at ?? null;
  const claimant = claim?.session_id ? state.sessions[claim.session_id] : undefined;
  if (claimant !== undefined && (lastAt === null || Date.parse(claimant.last_heartbeat_at) > Date.parse(lastAt))) lastAt = claimant.last_heartbeat_at;
  let lastMarks: (Mark | null)[] = [latest];
  if (lastAt === null && workspace_present.value) {
    const obs = worktreeMode ? wtObs : brObs;
    lastAt = obs?.at ?? null;
    lastMarks = [obs];
  }
  const last_activity_at = fact(lastAt === null ? null : new Date(lastAt).toISOString(), ...lastMarks);
  const inactive = fact(lastAt !== null && Date.parse(now) - Date.parse(lastAt) > ctx.stall_seconds * 1000, ...last_activity_at.evidence);

  const deps = depsOf(wu);
  const unmet_deps = deps.filter((d) => !isDone(state.wus[d]));
  const deps_done = fact(unmet_deps.length === 0, ...deps.flatMap((d) => {
    const dep = state.wus[d];
    return dep === undefined ? [] : [dep.stamped, dep.stamp_file, dep.yaml_status_mark];
  }));

  return {
    stamped, DONE, handed_off, claimed, mode, worktree_path, branch, wt_present, br_present, workspace_present, returned, executing, blocked,
    past_eligible, overlap, last_activity_at, inactive, deps_done, unmet_deps, recorded_mode,
  };
}
