import { isWorktreeMode, type ClaimedMode } from '../events/work-units/terms.js';
import { stepWu } from '../machines/work-unit-steps.js';
import type { WuMachineEvent } from '../machines/work-unit.js';
import { holdsClaims, livenessOf, type Liveness } from '../projections/coordination/liveness.js';
import type { WorkUnitsConfig } from '../projections/work-units/settings.js';
import { currentClaim, holderOf, isHolder, laneAtLimit, notHolder, requireFinisher, requireHolder, unfinishedDependencies } from './claim-holder.js';
import { ownValue } from '../projections/own-keys.js';
import { isDone } from '../projections/work-units/evidence.js';
import type { WorkUnitsState, WuRecord } from '../projections/work-units/state.js';
import type { Decision } from './decision.js';
import { ErrorCode, WorkUnitErrorCode } from './error-codes.js';
import { Refusal, refuseInput } from './refusal.js';

/**
 * The `wu` lifecycle rules of work-units.md §3.3 as deciders: claim, checkpoint, return, block,
 * unblock, release. Each reads the WU's fold and its stream version (read before the fold, so an
 * event landing in between makes the append conflict) and answers the one event to append, asked
 * of the `wu` machine; a race is then a conflict, never a lost update.
 */
export interface WuCommandState {
  fold: WorkUnitsState;
  /** The version of `wu/<id>`, read before the fold. */
  version: number;
}

/** What a lifecycle command reports: the YAML status it leaves, and the claim it made. */
export interface WuOutcome {
  yaml_status: string | null;
  claim?: { session_id: string | null; mode: ClaimedMode; worktree_path: string | null; branch: string | null; takeover_from: string | null } | undefined;
}

/** Who acts, when, and the settings a claim's defaults come from. */
export interface WuActor {
  wuId: string;
  /** The acting session, or null. */
  session: string | null;
  /** The recorded actor: the session, the agent identity acting without one, or `system`. */
  actor: string;
  now: string;
}

export function knownWu(state: WorkUnitsState, wuId: string): WuRecord {
  const wu = state.wus[wuId];
  if (wu === undefined || !wu.defined) throw new Refusal(ErrorCode.UNKNOWN_ID, `WU ${wuId} not found`, { wu_id: wuId });
  return wu;
}

/** Done is terminal: every command but `wu done` is refused naming the state. */
function refuseTerminal(wu: WuRecord, command: string): void {
  if (isDone(wu))
    throw new Refusal(ErrorCode.ILLEGAL_TRANSITION, `${wu.wu_id} is in the terminal state done; wu ${command} is not allowed`, {
      wu_id: wu.wu_id,
      state: 'done',
    });
}

/** The machine must accept the event; the message names the state and the move. */
function requireLegal(wu: WuRecord, event: WuMachineEvent, command: string, code: string = ErrorCode.ILLEGAL_TRANSITION): void {
  if (stepWu(wu.lifecycle, event) === null) {
    throw new Refusal(code, `wu ${command} is not allowed while ${wu.wu_id} is ${wu.lifecycle.state}`, { wu_id: wu.wu_id, state: wu.lifecycle.state });
  }
}

/** The WU, known, not done, and the machine accepting `event`. */
function movable(state: WuCommandState, wuId: string, command: string, event: WuMachineEvent, code?: string): WuRecord {
  const wu = knownWu(state.fold, wuId);
  refuseTerminal(wu, command);
  requireLegal(wu, event, command, code);
  return wu;
}

function one(wuId: string, type: string, data: Record<string, unknown>, version: number, outcome: WuOutcome): Decision<WuOutcome> {
  const stream = `wu/${wuId}`;
  return { events: [{ type, stream, data }], expected: { [stream]: version }, outcome };
}

const nothing = (wu: WuRecord): Decision<WuOutcome> => ({ events: [], expected: {}, outcome: { yaml_status: wu.yaml_status } });

export function isClaimed(wu: WuRecord): boolean {
  return wu.lifecycle.state === 'in_progress' || wu.lifecycle.state === 'blocked' || wu.lifecycle.picked_up;
}

/** The liveness of a session as the work-unit fold knows it (the one rule: liveness.ts). */
export function sessionLiveness(state: WorkUnitsState, sessionId: string, now: string): Liveness {
  return livenessOf(ownValue(state.sessions, sessionId), now);
}

/** Lane slug (§3.2): lower-cased, runs outside [a-z0-9] → `-`, trimmed of `-`. */
export function laneSlug(lane: string): string {
  return lane
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

export function defaultWorktree(worktreesDir: string, lane: string, wuId: string): string {
  return `${worktreesDir.replace(/\/+$/, '')}/${laneSlug(lane)}-${wuId.toLowerCase()}`;
}

export function defaultBranch(lane: string, wuId: string): string {
  return `lane/${laneSlug(lane)}/${wuId.toLowerCase()}`;
}

export interface ClaimWu extends WuActor {
  mode?: ClaimedMode | undefined;
  worktree?: string | undefined;
  branch?: string | undefined;
  defaults: { claimMode: ClaimedMode; worktreesDir: string };
  /** The claiming session's own worktree and branch (`session start`): used before the defaults. */
  sessionWorkspace?: { worktree?: string; branch?: string } | undefined;
  /** Take over a holder whose lease lapsed (`--takeover`), with `reason`. */
  takeover?: boolean | undefined;
  /** Claim despite unfinished dependencies or a full lane (`--force`), with `reason`. */
  force?: boolean | undefined;
  reason?: string | undefined;
  /** Paths or globs to reserve besides the WU's code_paths (`--paths`). */
  paths?: readonly string[] | undefined;
  /** The lane policies the readiness check reads. */
  config: WorkUnitsConfig;
}

/** A claim needs someone to hold it: a session, or an agent identity. */
function requireIdentity(command: ClaimWu): void {
  if (command.session !== null || (command.actor !== 'system' && !command.actor.startsWith('session_'))) return;
  throw new Refusal(
    WorkUnitErrorCode.NO_IDENTITY,
    'session: a claim needs a holder: act as a session (--session / BATON_SESSION, from `baton session start`) or an agent identity (BATON_AGENT_IDENTITY); nothing was appended',
    { field: 'session' },
  );
}

/** `--takeover` and `--force` say why. */
function requireReasonFor(command: ClaimWu): void {
  const flag = command.takeover === true ? 'takeover' : command.force === true ? 'force' : null;
  if (flag !== null && (command.reason === undefined || command.reason.trim() === '')) throw refuseInput(`required with ${flag} (say why)`, 'reason');
}

/** Unfinished dependencies and a full lane refuse the claim unless forced; what was overridden is recorded. */
function readiness(command: ClaimWu, fold: WorkUnitsState, wu: WuRecord): ('dependencies' | 'lane')[] {
  const forced: ('dependencies' | 'lane')[] = [];
  const deps = unfinishedDependencies(fold, wu);
  if (deps.length > 0) {
    if (command.force !== true)
      throw new Refusal(
        WorkUnitErrorCode.DEPENDENCIES_NOT_DONE,
        `${wu.wu_id} depends on ${deps.join(', ')}, not done yet; finish them first, or claim with --force --reason R`,
        { wu_id: wu.wu_id, dependencies: deps },
      );
    forced.push('dependencies');
  }
  const full = laneAtLimit(fold, wu, command.config);
  if (full !== null) {
    if (command.force !== true)
      throw new Refusal(
        WorkUnitErrorCode.LANE_AT_WIP_LIMIT,
        `lane ${wu.def.lane!} is at its WIP limit (${full.wip_limit}), held by ${full.holders.join(', ')}; wait for one to finish, or claim with --force --reason R`,
        { wu_id: wu.wu_id, lane: wu.def.lane, wip_limit: full.wip_limit, holders: full.holders },
      );
    forced.push('lane');
  }
  return forced;
}

/** A held claim: the holder's repeat is nothing, a later session of its identity carries it on, anyone else takes over a lapsed one explicitly. */
function takeoverOf(command: ClaimWu, fold: WorkUnitsState, wu: WuRecord): { from: string | null; repeat: boolean } {
  if (!isClaimed(wu)) return { from: null, repeat: false };
  const holder = holderOf(fold, wu, command.now);
  const claimant = currentClaim(wu)?.session_id ?? null;
  if (holder === null) return { from: claimant, repeat: false };
  if (holder.session !== null && holder.session === command.session) return { from: null, repeat: true };
  if (holder.session === null && isHolder(fold, holder, command)) return { from: null, repeat: true };
  if (isHolder(fold, holder, command)) return { from: claimant, repeat: false };
  if (holdsClaims(holder.liveness)) {
    throw new Refusal(
      WorkUnitErrorCode.ALREADY_CLAIMED,
      `${wu.wu_id} is claimed by live session ${holder.session ?? holder.identity!} (lease until ${holder.lease_until})`,
      {
        wu_id: wu.wu_id,
        claimed_by: holder.session ?? holder.identity,
        lease_until: holder.lease_until,
      },
    );
  }
  if (command.takeover !== true) {
    throw notHolder(wu, holder, 'claim', `its lease lapsed: take it over with baton wu claim ${wu.wu_id} --takeover --reason R`);
  }
  return { from: claimant, repeat: false };
}

/**
 * `wu claim`: a holder and readiness first. The holder's own repeat appends nothing; a live
 * holder's WU is ALREADY_CLAIMED; a lapsed one is taken over only with `--takeover --reason`.
 * Unfinished dependencies and a lane at its WIP limit refuse it unless `--force --reason`.
 */
export function decideClaim(command: ClaimWu, state: WuCommandState): Decision<WuOutcome> {
  const { wuId, session: me } = command;
  const wu = knownWu(state.fold, wuId);
  refuseTerminal(wu, 'claim');
  requireIdentity(command);
  requireReasonFor(command);
  const takeover = takeoverOf(command, state.fold, wu);
  if (takeover.repeat) {
    const reserved = currentClaim(wu)?.paths ?? [];
    if ((command.paths ?? []).some((p) => !reserved.includes(p)))
      throw refuseInput(`${wuId} is already yours; reservations are made by the claim (release it and claim it again with them)`, 'paths');
    return nothing(wu);
  }
  requireLegal(wu, { type: 'CLAIM' }, 'claim');
  const forced = isClaimed(wu) ? [] : readiness(command, state.fold, wu);
  const mode: ClaimedMode = command.mode ?? (wu.def.claimed_mode as ClaimedMode | undefined) ?? command.defaults.claimMode;
  if (command.worktree !== undefined && !isWorktreeMode(mode))
    throw refuseInput(`a ${mode} claim has no worktree (the root checkout is its workspace)`, 'worktree');
  const lane = wu.def.lane ?? 'default';
  const claim = {
    session_id: me,
    mode,
    worktree_path: isWorktreeMode(mode)
      ? (command.worktree ?? command.sessionWorkspace?.worktree ?? defaultWorktree(command.defaults.worktreesDir, lane, wuId))
      : null,
    branch: command.branch ?? command.sessionWorkspace?.branch ?? defaultBranch(lane, wuId),
    takeover_from: takeover.from,
  };
  const recorded = {
    ...(command.reason !== undefined && (command.takeover === true || forced.length > 0) ? { reason: command.reason.trim() } : {}),
    ...(forced.length > 0 ? { forced } : {}),
    ...(me === null ? { agent_identity: command.actor } : {}),
    ...(command.paths !== undefined && command.paths.length > 0 ? { paths: [...new Set(command.paths)] } : {}),
  };
  return one(wuId, 'wu.claimed', { wu_id: wuId, ...claim, ...recorded }, state.version, { yaml_status: 'in_progress', claim });
}

export interface CheckpointWu extends WuActor {
  note: string;
  progress?: string | undefined;
  nextSteps?: string | undefined;
}

export function decideCheckpoint(command: CheckpointWu, state: WuCommandState): Decision<WuOutcome> {
  const wu = movable(state, command.wuId, 'checkpoint', { type: 'CHECKPOINT' }, WorkUnitErrorCode.NOT_CLAIMED);
  requireHolder(state.fold, wu, command, command.now, 'checkpoint');
  const data = {
    wu_id: command.wuId,
    session_id: command.session,
    note: command.note,
    progress: command.progress ?? null,
    next_steps: command.nextSteps ?? null,
  };
  return one(command.wuId, 'wu.checkpointed', data, state.version, { yaml_status: wu.yaml_status });
}

export interface ReturnWu extends WuActor {
  note?: string | undefined;
}

/** `wu return`: nothing to add when the window's latest evidence is already a return. */
export function decideReturn(command: ReturnWu, state: WuCommandState): Decision<WuOutcome> {
  const wu = movable(state, command.wuId, 'return', { type: 'RETURN' }, WorkUnitErrorCode.NOT_CLAIMED);
  requireHolder(state.fold, wu, command, command.now, 'return');
  const later = [wu.claim, wu.checkpoint, wu.unblock, wu.pickup].filter((m) => m !== null && m.seq >= wu.window_start).map((m) => m!.seq);
  if (wu.returned !== null && wu.returned.seq >= wu.window_start && later.every((s) => s < wu.returned!.seq)) return nothing(wu);
  const data = { wu_id: command.wuId, session_id: command.session, note: command.note ?? null, source: 'manual' as const };
  return one(command.wuId, 'wu.worker_returned', data, state.version, { yaml_status: wu.yaml_status });
}

export function decideBlock(command: WuActor & { reason: string }, state: WuCommandState): Decision<WuOutcome> {
  const wu = movable(state, command.wuId, 'block', { type: 'BLOCK' });
  requireHolder(state.fold, wu, command, command.now, 'block');
  return one(command.wuId, 'wu.blocked', { wu_id: command.wuId, reason: command.reason.trim() }, state.version, { yaml_status: 'blocked' });
}

export function decideUnblock(command: WuActor, state: WuCommandState): Decision<WuOutcome> {
  const wu = movable(state, command.wuId, 'unblock', { type: 'UNBLOCK' });
  requireHolder(state.fold, wu, command, command.now, 'unblock');
  const next = stepWu(wu.lifecycle, { type: 'UNBLOCK' })!;
  return one(command.wuId, 'wu.unblocked', { wu_id: command.wuId }, state.version, { yaml_status: next.state === 'in_progress' ? 'in_progress' : 'ready' });
}

/**
 * `wu release`: the holder, or an orchestrator once the worker returned or the lease lapsed;
 * releasing somebody else's claim must say why (§3.3).
 */
export function decideRelease(command: WuActor & { reason?: string | undefined }, state: WuCommandState): Decision<WuOutcome> {
  const wu = movable(state, command.wuId, 'release', { type: 'RELEASE' }, WorkUnitErrorCode.NOT_CLAIMED);
  requireFinisher(state.fold, wu, command, command.now, 'release');
  const claimant = currentClaim(wu)?.session_id ?? null;
  if (command.reason === undefined && (claimant === null || claimant !== command.session)) {
    throw refuseInput(`required when the actor is not the claimant${claimant ? ` (${claimant})` : ''}`, 'reason');
  }
  const data = { wu_id: command.wuId, reason: command.reason?.trim() ?? null, previous_claimant: claimant };
  return one(command.wuId, 'wu.released', data, state.version, { yaml_status: 'ready' });
}
