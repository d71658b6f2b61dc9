import type { ClaimedMode } from '../events/work-units/vocabulary.js';
import { depsOf } from '../projections/work-units/evidence.js';
import { handoffFormatFor, renderHandoffMarkdown, renderHandoffXml, type HandoffInput } from '../projections/work-units/handoff.js';
import { planDocument, type InitiativeComputation } from '../projections/work-units/initiative-view.js';
import type { WorkUnitsState } from '../projections/work-units/state.js';
import type { Decision, ProposedEvent } from './decision.js';
import { ErrorCode } from './error-codes.js';
import { Refusal } from './refusal.js';
import { defaultBranch, defaultWorktree } from './work-units.js';

/**
 * `orchestrate run` (work-units.md §10) as a decider: the initiative's computation over the fold
 * answers one batch — the attempt (`orchestration.attempt_started`, its plan) and a
 * `handoff.emitted` per launchable WU — claimed with the initiative stream's expected version, so
 * two runs cannot record the same attempt; nothing when nothing is launchable; a refusal while
 * integrity is broken. The shell writes the bundle's files from the outcome after the append.
 */
export interface LaunchInitiative {
  initiative: string;
  client: string;
  now: string;
  orchestration: { default_claim_mode: string; worktrees_dir: string; stall_threshold: string; claude_subagent_type: string };
  /** The attempt's folder, relative to the workspace (the shell's layout). */
  attemptDir: (attempt: number) => string;
  /** The content digest a handoff is recorded with (sha256 hex; the shell computes it). */
  digest: (text: string) => string;
}

/** The state read: the initiative stream's version (read before the fold), the fold, its computation, and the next attempt number. */
export interface LaunchState {
  version: number;
  fold: WorkUnitsState;
  computation: InitiativeComputation;
  attempt: number;
}

export interface HandoffFields {
  wu_id: string;
  lane: string;
  logical_wave: number;
  launch_attempt: number;
  relaunch: boolean;
  claimed_mode: ClaimedMode;
  worktree_path: string | null;
  branch: string;
}

export interface LaunchedHandoff extends HandoffFields {
  content: string;
  path: string;
}

export type LaunchOutcome = { attempt: null } | { attempt: number; rel: string; format: 'markdown' | 'xml'; handoffs: LaunchedHandoff[] };

/** What a handoff says, from the fold before the batch (so a rebuild reads the same inputs). */
export function handoffInput(
  state: WorkUnitsState,
  c: InitiativeComputation,
  h: HandoffFields,
  client: string,
  stallThreshold: string,
  subagentType: string,
): HandoffInput {
  const wu = state.wus[h.wu_id]!;
  return {
    ...h,
    def: wu.def,
    initiative: c.initiative,
    client,
    dependencies: depsOf(wu).map((d) => ({ wu_id: d, state: c.assessments.get(d)?.decision.state ?? 'unknown' })),
    stall_threshold: stallThreshold,
    subagent_type: subagentType,
  };
}

export function renderHandoff(input: HandoffInput, format: string): string {
  return format === 'xml' ? renderHandoffXml(input) : renderHandoffMarkdown(input);
}

/** Launches are refused while a member is contaminated (recover first). */
function requireIntegrity(c: InitiativeComputation): void {
  if (!c.blocked_by_integrity) return;
  const contaminated = c.members.filter((id) => c.assessments.get(id)!.decision.state === 'contaminated');
  throw new Refusal(ErrorCode.INTEGRITY_BLOCKED, `launch refused until integrity is restored: contaminated ${contaminated.join(', ')} (recover first)`, {
    contaminated,
  });
}

function launchedHandoffs(command: LaunchInitiative, state: LaunchState, rel: string, format: 'markdown' | 'xml'): LaunchedHandoff[] {
  const { fold, computation: c, attempt } = state;
  const o = command.orchestration;
  const ext = format === 'xml' ? 'xml' : 'md';
  return c.launches.map((action) => {
    const wu = fold.wus[action.wu_id]!;
    const mode = (wu.def.claimed_mode ?? o.default_claim_mode) as ClaimedMode;
    const lane = wu.def.lane ?? 'default';
    const fields: HandoffFields = {
      wu_id: wu.wu_id,
      lane,
      logical_wave: action.logical_wave,
      launch_attempt: attempt,
      relaunch: action.type === 'relaunch_wu',
      claimed_mode: mode,
      worktree_path: mode === 'worktree' || mode === 'worktree-pr' ? defaultWorktree(o.worktrees_dir, lane, wu.wu_id) : null,
      branch: defaultBranch(lane, wu.wu_id),
    };
    const content = renderHandoff(handoffInput(fold, c, fields, command.client, o.stall_threshold, o.claude_subagent_type), format);
    return { ...fields, content, path: `${rel}/handoffs/${wu.wu_id}.${ext}` };
  });
}

export function decideLaunch(command: LaunchInitiative, state: LaunchState): Decision<LaunchOutcome> {
  const c = state.computation;
  requireIntegrity(c);
  if (c.launches.length === 0) return { events: [], expected: {}, outcome: { attempt: null } };
  const { initiative } = command;
  const stream = `initiative/${initiative}`;
  const attempt = state.attempt;
  const format = handoffFormatFor(command.client);
  const rel = command.attemptDir(attempt);
  const plan = planDocument(c, attempt, command.now);
  const handoffs = launchedHandoffs(command, state, rel, format);
  const started: ProposedEvent = {
    type: 'orchestration.attempt_started',
    stream,
    data: {
      initiative,
      launch_attempt: attempt,
      client: command.client,
      handoff_format: format,
      max_active_workers: c.max_active_workers,
      max_active_workers_source: c.max_active_workers_source,
      stall_threshold: command.orchestration.stall_threshold,
      logical_waves: plan.logical_waves,
      waves: plan.waves,
      deferred: plan.deferred,
    },
  };
  const emitted = handoffs.map((h): ProposedEvent => ({
    type: 'handoff.emitted',
    stream,
    data: {
      initiative,
      wu_id: h.wu_id,
      launch_attempt: attempt,
      lane: h.lane,
      logical_wave: h.logical_wave,
      handoff_format: format,
      handoff_artifact_path: h.path,
      content_sha256: command.digest(h.content),
      claimed_mode: h.claimed_mode,
      worktree_path: h.worktree_path,
      branch: h.branch,
      relaunch: h.relaunch,
    },
  }));
  return {
    events: [started, ...emitted],
    expected: { [stream]: state.version === 0 ? 'no_stream' : state.version },
    outcome: { attempt, rel, format, handoffs },
  };
}
