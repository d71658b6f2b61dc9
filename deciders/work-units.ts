import { isWorktreeMode, type ClaimedMode } from '../events/work-units/terms.js';
import { stepWu } from '../machines/work-unit-steps.js';
import type { WuMachineEvent } from '../machines/work-unit.js';
import { holdsClaims, livenessOf, type Liveness } from '../projections/coordination/liveness.js';
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

/** The claim of the WU's current window (a release or relaunch starts a new one). */
function currentClaim(wu: WuRecord): WuRecord['claim'] {
  return wu.claim !== null && wu.claim.seq >= wu.window_start ? wu.claim : null;
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
}

/**
 * `wu claim`: the claimant's own repeat appends nothing; a live claimant's WU is ALREADY_CLAIMED;
 * a dead (or ended) claimant's is taken over, naming it.
 */
export function decideClaim(command: ClaimWu, state: WuCommandState): Decision<WuOutcome> {
  const { wuId, session: me } = command;
  const wu = knownWu(state.fold, wuId);
  refuseTerminal(wu, 'claim');
  let takeoverFrom: string | null = null;
  if (isClaimed(wu)) {
    const claimant = currentClaim(wu)?.session_id ?? null;
    if (claimant !== null && claimant === me) return nothing(wu);
    if (claimant !== null && holdsClaims(sessionLiveness(state.fold, claimant, command.now))) {
      throw new Refusal(WorkUnitErrorCode.ALREADY_CLAIMED, `${wuId} is claimed by live session ${claimant}`, { wu_id: wuId, claimed_by: claimant });
    }
    takeoverFrom = claimant;
  }
  requireLegal(wu, { type: 'CLAIM' }, 'claim');
  const mode: ClaimedMode = command.mode ?? (wu.def.claimed_mode as ClaimedMode | undefined) ?? command.defaults.claimMode;
  if (command.worktree !== undefined && !isWorktreeMode(mode))
    throw refuseInput(`a ${mode} claim has no worktree (the root checkout is its workspace)`, 'worktree');
  const lane = wu.def.lane ?? 'default';
  const claim = {
    session_id: me,
    mode,
    worktree_path: isWorktreeMode(mode) ? (command.worktree ?? defaultWorktree(command.defaults.worktreesDir, lane, wuId)) : null,
    branch: command.branch ?? defaultBranch(lane, wuId),
    takeover_from: takeoverFrom,
  };
  return one(wuId, 'wu.claimed', { wu_id: wuId, ...claim }, state.version, { yaml_status: 'in_progress', claim });
}

export interface CheckpointWu extends WuActor {
  note: string;
  progress?: string | undefined;
  nextSteps?: string | undefined;
}

export function decideCheckpoint(command: CheckpointWu, state: WuCommandState): Decision<WuOutcome> {
  const wu = movable(state, command.wuId, 'checkpoint', { type: 'CHECKPOINT' }, WorkUnitErrorCode.NOT_CLAIMED);
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
  const later = [wu.claim, wu.checkpoint, wu.unblock, wu.pickup].filter((m) => m !== null && m.seq >= wu.window_start).map((m) => m!.seq);
  if (wu.returned !== null && wu.returned.seq >= wu.window_start && later.every((s) => s < wu.returned!.seq)) return nothing(wu);
  const data = { wu_id: command.wuId, session_id: command.session, note: command.note ?? null, source: 'manual' as const };
  return one(command.wuId, 'wu.worker_returned', data, state.version, { yaml_status: wu.yaml_status });
}

export function decideBlock(command: WuActor & { reason: string }, state: WuCommandState): Decision<WuOutcome> {
  movable(state, command.wuId, 'block', { type: 'BLOCK' });
  return one(command.wuId, 'wu.blocked', { wu_id: command.wuId, reason: command.reason.trim() }, state.version, { yaml_status: 'blocked' });
}

export function decideUnblock(command: WuActor, state: WuCommandState): Decision<WuOutcome> {
  const wu = movable(state, command.wuId, 'unblock', { type: 'UNBLOCK' });
  const next = stepWu(wu.lifecycle, { type: 'UNBLOCK' })!;
  return one(command.wuId, 'wu.unblocked', { wu_id: command.wuId }, state.version, { yaml_status: next.state === 'in_progress' ? 'in_progress' : 'ready' });
}

/** `wu release`: releasing somebody else's claim must say why (§3.3). */
export function decideRelease(command: WuActor & { reason?: string | undefined }, state: WuCommandState): Decision<WuOutcome> {
  const wu = movable(state, command.wuId, 'release', { type: 'RELEASE' }, WorkUnitErrorCode.NOT_CLAIMED);
  const claimant = currentClaim(wu)?.session_id ?? null;
  if (command.reason === undefined && (claimant === null || claimant !== command.session)) {
    throw refuseInput(`required when the actor is not the claimant${claimant ? ` (${claimant})` : ''}`, 'reason');
  }
  const data = { wu_id: command.wuId, reason: command.reason?.trim() ?? null, previous_claimant: claimant };
  return one(command.wuId, 'wu.released', data, state.version, { yaml_status: 'ready' });
}
