import { compareWuIds, isTerminalYamlStatus, isWorktreeMode, type ClaimedMode } from '../../events/work-units/terms.js';
import { isDoneById } from './lazy-records.js';
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

/** The values of the predicates alone (what the decision table and the status rows read). */
export type WuValues = { [K in keyof WuEvidence]: WuEvidence[K] extends Fact<infer T> ? T : WuEvidence[K] };

export interface EvidenceContext {
  state: WorkUnitsState;
  config: WorkUnitsConfig;
  now: string;
  /** Stall threshold in seconds (the config's unless an attempt recorded another). */
  stall_seconds: number;
}

/**
 * A fact and its evidence: the marks given, one per seq (the last given wins), in seq order. There
 * are at most a handful, so they are deduplicated in place (no Map): evidenceOf makes a few dozen facts
 * for every WU of the workspace on each `orchestrate status`.
 */
const fact = <T>(value: T, ...marks: (Mark | null | undefined)[]): Fact<T> => {
  const evidence: Mark[] = [];
  for (const m of marks) {
    if (m === null || m === undefined) continue;
    let i = 0;
    while (i < evidence.length && evidence[i]!.seq !== m.seq) i++;
    evidence[i] = m;
  }
  if (evidence.length > 1) evidence.sort((a, b) => a.seq - b.seq);
  return { value, evidence };
};

/** `fact` of at most one mark (most facts): no rest array, no dedupe, no sort. */
const fact1 = <T>(value: T, mark: Mark | null | undefined): Fact<T> => ({ value, evidence: mark === null || mark === undefined ? [] : [mark] });

const inWindow = (wu: WuRecord, mark: Mark | null): boolean => mark !== null && mark.seq >= wu.window_start;

const depsCache = new WeakMap<WuRecord, { wu_id: string; blocked_by: unknown; dependencies: unknown; deps: readonly string[] }>();

/**
 * deps(W) = blocked_by ∪ dependencies, deduplicated, numeric order (§3.1). A view asks it several
 * times per WU (evidence, cycles, waves, scheduling): the answer is kept per record while its two
 * lists are the same arrays (the fold replaces a list, never edits one), and shared, read-only.
 */
export function depsOf(wu: WuRecord): readonly string[] {
  const { blocked_by, dependencies } = wu.def;
  const cached = depsCache.get(wu);
  if (cached !== undefined && cached.blocked_by === blocked_by && cached.dependencies === dependencies && cached.wu_id === wu.wu_id) return cached.deps;
  const deps = Object.freeze([...new Set([...(blocked_by ?? []), ...(dependencies ?? [])])].filter((d) => d !== wu.wu_id).sort(compareWuIds));
  depsCache.set(wu, { wu_id: wu.wu_id, blocked_by, dependencies, deps });
  return deps;
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

const dirtyCache = new WeakMap<EvidenceContext, { dirty: WorkUnitsState['dirty']; ignore: readonly string[]; paths: string[] }>();

/** The recorded dirty paths minus the ignored ones: the same for every WU of a context, so computed once. */
function dirtyPaths(ctx: EvidenceContext): string[] {
  const { state, config } = ctx;
  const ignore = config.orchestration.contamination_ignore;
  const cached = dirtyCache.get(ctx);
  if (cached !== undefined && cached.dirty === state.dirty && cached.ignore === ignore) return cached.paths;
  const paths = state.dirty === null ? [] : state.dirty.paths.filter((p) => !ignore.some((g) => overlappingPaths([p], [g]).length > 0));
  dirtyCache.set(ctx, { dirty: state.dirty, ignore, paths });
  return paths;
}

/** The claimed worktree and branch of evidenceOf (claim, then handoff, then the YAML) and what was observed of each. */
function workspaceFacts(wu: WuRecord, claim: WuRecord['claim'], handoff: WuRecord['handoff'], yamlClaimed: boolean) {
  const wtSource = claim?.worktree_path ? claim : handoff?.worktree_path ? handoff : null;
  const yamlWt = yamlClaimed && wu.def.worktree_path !== undefined ? wu.def.worktree_path : null;
  const worktree_path = fact1<string | null>(wtSource?.worktree_path ?? yamlWt, wtSource ?? (yamlWt !== null ? wu.def_seq['worktree_path'] : null));
  const wtObs = worktree_path.value !== null && Object.hasOwn(wu.worktrees, worktree_path.value) ? wu.worktrees[worktree_path.value]! : null;

  const brSource = claim?.branch ? claim : handoff?.branch ? handoff : null;
  const yamlBr = yamlClaimed && wu.def.claimed_branch !== undefined ? wu.def.claimed_branch : null;
  const branchValue = brSource?.branch ?? yamlBr ?? wtObs?.branch ?? null;
  const branch = fact1<string | null>(branchValue, brSource ?? (yamlBr !== null ? wu.def_seq['claimed_branch'] : wtObs));
  const brObs = branch.value !== null && Object.hasOwn(wu.branches, branch.value) ? wu.branches[branch.value]! : null;
  return { worktree_path, wtObs, branch, brObs };
}

/**
 * last_activity_at and inactive of evidenceOf. `presentObs` is the observation of the present
 * workspace (worktree or branch by mode), undefined when the workspace is not present.
 */
function activityFacts(
  wu: WuRecord,
  ctx: EvidenceContext,
  claim: WuRecord['claim'],
  pickup: WuRecord['pickup'],
  presentObs: Mark | null | undefined,
): { last_activity_at: Fact<string | null>; inactive: Fact<boolean> } {
  // last_activity_at: the latest activity in the window, or the claimant's heartbeat.
  const activities: Mark[] = [
    claim,
    inWindow(wu, wu.checkpoint) ? wu.checkpoint : null,
    inWindow(wu, wu.unblock) ? wu.unblock : null,
    pickup,
    inWindow(wu, wu.signal) ? wu.signal : null,
    inWindow(wu, wu.yaml_claimed_at) ? wu.yaml_claimed_at : null,
  ].filter((m): m is Mark => m !== null);
  let latest: Mark | null = null;
  for (const m of activities) if (latest === null || Date.parse(m.at) > Date.parse(latest.at)) latest = m;
  let lastAt = latest?.at ?? null;
  const claimant = claim?.session_id ? ctx.state.sessions[claim.session_id] : undefined;
  if (claimant !== undefined && (lastAt === null || Date.parse(claimant.last_heartbeat_at) > Date.parse(lastAt))) lastAt = claimant.last_heartbeat_at;
  let lastMarks: (Mark | null)[] = [latest];
  if (lastAt === null && presentObs !== undefined) {
    lastAt = presentObs?.at ?? null;
    lastMarks = [presentObs];
  }
  const last_activity_at = fact(lastAt === null ? null : new Date(lastAt).toISOString(), ...lastMarks);
  const inactive = fact(lastAt !== null && Date.parse(ctx.now) - Date.parse(lastAt) > ctx.stall_seconds * 1000, ...last_activity_at.evidence);
  return { last_activity_at, inactive };
}

/** deps_done of evidenceOf: its evidence is every mark that fixes whether a dependency is done. */
function depsDoneFact(deps: readonly string[], unmet_deps: readonly string[], state: WorkUnitsState): Fact<boolean> {
  return fact(
    unmet_deps.length === 0,
    ...deps.flatMap((d) => {
      const dep = state.wus[d];
      return dep === undefined ? [] : [dep.stamped, dep.stamp_file, dep.yaml_status_mark];
    }),
  );
}

export function evidenceOf(wu: WuRecord, ctx: EvidenceContext, options: { assumePastEligible?: boolean } = {}): WuEvidence {
  const { state, config } = ctx;
  const stampMark = wu.stamped ?? (wu.stamp_file?.present && wu.stamp_file.valid ? wu.stamp_file : null);
  const stamped = fact1(isStamped(wu), stampMark);
  const yamlTerminal = wu.yaml_status !== null && isTerminalYamlStatus(wu.yaml_status);
  const DONE = fact(stamped.value || yamlTerminal, ...(stamped.value ? stamped.evidence : []), yamlTerminal ? wu.yaml_status_mark : null);

  const handoff = inWindow(wu, wu.handoff) ? wu.handoff : null;
  const claim = inWindow(wu, wu.claim) ? wu.claim : null;
  const pickup = inWindow(wu, wu.pickup) ? wu.pickup : null;
  const yamlClaimed = wu.yaml_status === 'in_progress' || wu.yaml_status === 'blocked';
  const claimed = fact(yamlClaimed || pickup !== null, yamlClaimed ? wu.yaml_status_mark : null, pickup);
  const handed_off = fact1(handoff !== null, handoff);

  const recorded_mode = (claim?.mode ?? handoff?.claimed_mode ?? wu.def.claimed_mode ?? null) as ClaimedMode | null;
  const mode = fact1<ClaimedMode>(
    recorded_mode ?? config.orchestration.default_claim_mode,
    claim ?? handoff ?? (wu.def.claimed_mode ? wu.def_seq['claimed_mode'] : null),
  );

  const { worktree_path, wtObs, branch, brObs } = workspaceFacts(wu, claim, handoff, yamlClaimed);

  const wt_present = fact1(wtObs?.present === true, wtObs);
  const br_present = fact1(brObs?.present === true, brObs);
  const worktreeMode = isWorktreeMode(mode.value);
  const workspace_present = fact(
    worktreeMode ? wt_present.value : br_present.value,
    ...(worktreeMode ? wt_present.evidence : br_present.evidence),
    ...mode.evidence,
  );

  const returnedMark = inWindow(wu, wu.returned) ? wu.returned : null;
  const returned = fact1(returnedMark !== null, returnedMark);
  const checkpoint = inWindow(wu, wu.checkpoint) && wu.checkpoint!.seq > (wu.claimed_true_seq ?? 0) ? wu.checkpoint : null;
  const executing = fact(workspace_present.value || checkpoint !== null, ...(workspace_present.value ? workspace_present.evidence : []), checkpoint);
  const blocked = fact1(wu.yaml_status === 'blocked', wu.yaml_status === 'blocked' ? wu.yaml_status_mark : null);
  const past = handed_off.value || claimed.value || returned.value || workspace_present.value;
  const past_eligible = fact(past, ...handed_off.evidence, ...claimed.evidence, ...returned.evidence, ...workspace_present.evidence);

  const dirty = dirtyPaths(ctx);
  const overlapValue = worktreeMode && (past || options.assumePastEligible === true) ? overlappingPaths(dirty, wu.def.code_paths ?? []) : [];
  const overlap = fact(overlapValue, overlapValue.length > 0 ? state.dirty : null, overlapValue.length > 0 ? wu.def_seq['code_paths'] : null);

  const { last_activity_at, inactive } = activityFacts(wu, ctx, claim, pickup, workspace_present.value ? (worktreeMode ? wtObs : brObs) : undefined);

  const deps = depsOf(wu);
  const unmet_deps = deps.filter((d) => !isDoneById(state, d));
  const deps_done = depsDoneFact(deps, unmet_deps, state);

  return {
    stamped,
    DONE,
    handed_off,
    claimed,
    mode,
    worktree_path,
    branch,
    wt_present,
    br_present,
    workspace_present,
    returned,
    executing,
    blocked,
    past_eligible,
    overlap,
    last_activity_at,
    inactive,
    deps_done,
    unmet_deps,
    recorded_mode,
  };
}

/** The values of full evidence (what `evidenceValues` computes directly). */
export function valuesOf(e: WuEvidence): WuValues {
  return {
    stamped: e.stamped.value,
    DONE: e.DONE.value,
    handed_off: e.handed_off.value,
    claimed: e.claimed.value,
    mode: e.mode.value,
    worktree_path: e.worktree_path.value,
    branch: e.branch.value,
    wt_present: e.wt_present.value,
    br_present: e.br_present.value,
    workspace_present: e.workspace_present.value,
    returned: e.returned.value,
    executing: e.executing.value,
    blocked: e.blocked.value,
    past_eligible: e.past_eligible.value,
    overlap: e.overlap.value,
    last_activity_at: e.last_activity_at.value,
    inactive: e.inactive.value,
    deps_done: e.deps_done.value,
    unmet_deps: e.unmet_deps,
    recorded_mode: e.recorded_mode,
  };
}

/** The later of two activity marks by time (the first wins a tie), for last_activity_at. */
function later(latest: Mark | null, m: Mark | null): Mark | null {
  if (m === null) return latest;
  return latest === null || Date.parse(m.at) > Date.parse(latest.at) ? m : latest;
}

/**
 * The raw last activity time of evidenceValues (evidenceOf's activityFacts without the marks).
 * `presentObs` is the observation of the present workspace, undefined when it is not present.
 */
function lastActivityAt(
  wu: WuRecord,
  state: WorkUnitsState,
  claim: WuRecord['claim'],
  pickup: WuRecord['pickup'],
  checkpointIn: boolean,
  presentObs: Mark | null | undefined,
): string | null {
  const start = wu.window_start;
  // last_activity_at: the latest activity in the window, or the claimant's heartbeat.
  let latest: Mark | null = later(null, claim);
  latest = later(latest, checkpointIn ? wu.checkpoint : null);
  latest = later(latest, wu.unblock !== null && wu.unblock.seq >= start ? wu.unblock : null);
  latest = later(latest, pickup);
  latest = later(latest, wu.signal !== null && wu.signal.seq >= start ? wu.signal : null);
  latest = later(latest, wu.yaml_claimed_at !== null && wu.yaml_claimed_at.seq >= start ? wu.yaml_claimed_at : null);
  let lastAt = latest !== null ? latest.at : null;
  const claimant = claim !== null && claim.session_id ? state.sessions[claim.session_id] : undefined;
  if (claimant !== undefined && (lastAt === null || Date.parse(claimant.last_heartbeat_at) > Date.parse(lastAt))) lastAt = claimant.last_heartbeat_at;
  if (lastAt === null && presentObs !== undefined) lastAt = presentObs !== null ? presentObs.at : null;
  return lastAt;
}

/**
 * `valuesOf(evidenceOf(wu, ctx, options))` computed directly: the same predicates, without
 * gathering the events behind each. `orchestrate status` and the views assess every WU of the
 * workspace and read only the values; `wu explain` asks evidenceOf for the events.
 * test/work-units/fold-properties.test.ts holds the two equal on random histories.
 */
export function evidenceValues(wu: WuRecord, ctx: EvidenceContext, options: { assumePastEligible?: boolean } = {}): WuValues {
  const { state, config, now } = ctx;
  const def = wu.def;
  const start = wu.window_start;
  const stamped = isStamped(wu);
  const yamlStatus = wu.yaml_status;
  const DONE = stamped || (yamlStatus !== null && isTerminalYamlStatus(yamlStatus));

  const handoff = wu.handoff !== null && wu.handoff.seq >= start ? wu.handoff : null;
  const claim = wu.claim !== null && wu.claim.seq >= start ? wu.claim : null;
  const pickup = wu.pickup !== null && wu.pickup.seq >= start ? wu.pickup : null;
  const yamlClaimed = yamlStatus === 'in_progress' || yamlStatus === 'blocked';
  const claimed = yamlClaimed || pickup !== null;
  const handed_off = handoff !== null;

  const recorded_mode = ((claim !== null ? claim.mode : undefined) ??
    (handoff !== null ? handoff.claimed_mode : undefined) ??
    def.claimed_mode ??
    null) as ClaimedMode | null;
  const mode = recorded_mode ?? config.orchestration.default_claim_mode;

  const wtSource = claim !== null && claim.worktree_path ? claim : handoff !== null && handoff.worktree_path ? handoff : null;
  const yamlWt = yamlClaimed && def.worktree_path !== undefined ? def.worktree_path : null;
  const worktree_path = (wtSource !== null ? wtSource.worktree_path : null) ?? yamlWt;
  const wtObs = worktree_path !== null && Object.hasOwn(wu.worktrees, worktree_path) ? wu.worktrees[worktree_path]! : null;

  const brSource = claim !== null && claim.branch ? claim : handoff !== null && handoff.branch ? handoff : null;
  const yamlBr = yamlClaimed && def.claimed_branch !== undefined ? def.claimed_branch : null;
  const branch = (brSource !== null ? brSource.branch : null) ?? yamlBr ?? (wtObs !== null ? wtObs.branch : null) ?? null;
  const brObs = branch !== null && Object.hasOwn(wu.branches, branch) ? wu.branches[branch]! : null;

  const wt_present = wtObs !== null && wtObs.present === true;
  const br_present = brObs !== null && brObs.present === true;
  const worktreeMode = isWorktreeMode(mode);
  const workspace_present = worktreeMode ? wt_present : br_present;

  const returned = wu.returned !== null && wu.returned.seq >= start;
  const checkpointIn = wu.checkpoint !== null && wu.checkpoint.seq >= start;
  const executing = workspace_present || (checkpointIn && wu.checkpoint!.seq > (wu.claimed_true_seq ?? 0));
  const blocked = yamlStatus === 'blocked';
  const past = handed_off || claimed || returned || workspace_present;
  const overlap = worktreeMode && (past || options.assumePastEligible === true) ? overlappingPaths(dirtyPaths(ctx), def.code_paths ?? []) : [];

  const lastAt = lastActivityAt(wu, state, claim, pickup, checkpointIn, workspace_present ? (worktreeMode ? wtObs : brObs) : undefined);
  const last_activity_at = lastAt === null ? null : new Date(lastAt).toISOString();
  const inactive = lastAt !== null && Date.parse(now) - Date.parse(lastAt) > ctx.stall_seconds * 1000;

  const deps = depsOf(wu);
  const unmet_deps = deps.length === 0 ? [] : deps.filter((d) => !isDoneById(state, d));

  return {
    stamped,
    DONE,
    handed_off,
    claimed,
    mode,
    worktree_path,
    branch,
    wt_present,
    br_present,
    workspace_present,
    returned,
    executing,
    blocked,
    past_eligible: past,
    overlap,
    last_activity_at,
    inactive,
    deps_done: unmet_deps.length === 0,
    unmet_deps,
    recorded_mode,
  };
}
