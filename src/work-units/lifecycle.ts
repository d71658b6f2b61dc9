import { z } from 'zod';
import { describeZodIssues } from '../../events/validation.js';
import { branchName, CLAIMED_MODES, isWorktreeMode, requiredText, text, worktreePath, type ClaimedMode } from '../../events/work-units/vocabulary.js';
import { stepWu } from '../../machines/work-unit-steps.js';
import type { WuMachineEvent } from '../../machines/work-unit.js';
import { isDone } from '../../projections/work-units/evidence.js';
import type { WorkUnitsState, WuRecord } from '../../projections/work-units/state.js';
import { BatonError, ConflictError, ErrorCode, invalidInput } from '../errors.js';
import { appendAs, appendedOf, checkWuId, knownWu, loadWorkUnits, sessionOf, type WorkUnitsEnv } from './env.js';
import { WorkUnitErrorCode } from './errors.js';

/**
 * The `wu` lifecycle commands of work-units.md §3.3: claim, checkpoint, return, block, unblock,
 * release. Each reads the stream version, folds, asks the machine, and appends with that version,
 * so a race is a conflict, never a lost update.
 */
export const WuAction = { claim: 'claim', checkpoint: 'checkpoint', return: 'return', block: 'block', unblock: 'unblock', release: 'release' } as const;
export type WuAction = (typeof WuAction)[keyof typeof WuAction];

export interface LifecycleResult {
  wu_id: string;
  action: WuAction;
  appended: { seq: number; type: string }[];
  yaml_status: string | null;
  claim?: { session_id: string | null; mode: ClaimedMode; worktree_path: string | null; branch: string | null; takeover_from: string | null } | undefined;
}

interface Loaded {
  state: WorkUnitsState;
  wu: WuRecord;
  version: number;
  stream: string;
}

async function load(env: WorkUnitsEnv, wuId: string): Promise<Loaded> {
  checkWuId(wuId);
  const stream = `wu/${wuId}`;
  // The version is read before the fold: an event landing in between makes the append conflict.
  const version = await env.store.streamVersion(stream);
  const { state } = await loadWorkUnits(env);
  return { state, wu: knownWu(state, wuId), version, stream };
}

/** Done is terminal: every command but `wu done` is refused naming the state. */
function refuseTerminal(wu: WuRecord, command: string): void {
  if (isDone(wu)) {
    throw new BatonError(ErrorCode.ILLEGAL_TRANSITION, `${wu.wu_id} is in the terminal state done; wu ${command} is not allowed`, { wu_id: wu.wu_id, state: 'done' });
  }
}

function isClaimed(wu: WuRecord): boolean {
  return wu.lifecycle.state === 'in_progress' || wu.lifecycle.state === 'blocked' || wu.lifecycle.picked_up;
}

/** The machine must accept the event; the message names the state and the move. */
function requireLegal(wu: WuRecord, event: WuMachineEvent, command: string, code: string = ErrorCode.ILLEGAL_TRANSITION): void {
  if (stepWu(wu.lifecycle, event) === null) {
    throw new BatonError(code, `wu ${command} is not allowed while ${wu.wu_id} is ${wu.lifecycle.state}`, { wu_id: wu.wu_id, state: wu.lifecycle.state });
  }
}

function flags<S extends z.ZodType>(schema: S, input: unknown, names: Record<string, string>): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw invalidInput(describeZodIssues(parsed.error).map((p) => ({ ...p, field: names[p.field] ?? p.field })));
}

/** Lane slug (§3.2): lower-cased, runs outside [a-z0-9] → `-`, trimmed of `-`. */
export function laneSlug(lane: string): string {
  return lane.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}

export function defaultWorktree(worktreesDir: string, lane: string, wuId: string): string {
  return `${worktreesDir.replace(/\/+$/, '')}/${laneSlug(lane)}-${wuId.toLowerCase()}`;
}

export function defaultBranch(lane: string, wuId: string): string {
  return `lane/${laneSlug(lane)}/${wuId.toLowerCase()}`;
}

function sessionIsLive(state: WorkUnitsState, sessionId: string, now: string): boolean {
  const s = state.sessions[sessionId];
  if (s === undefined || s.ended) return false;
  return Date.parse(now) - Date.parse(s.last_heartbeat_at) <= s.ttl_seconds * 1000;
}

const ClaimFlags = z.strictObject({
  mode: z.enum(CLAIMED_MODES, `must be one of ${CLAIMED_MODES.join(', ')}`).optional(),
  worktree: worktreePath.optional(),
  branch: branchName.optional(),
});

export async function claimWu(env: WorkUnitsEnv, wuId: string, input: { mode?: string; worktree?: string; branch?: string }, retried = false): Promise<LifecycleResult> {
  const f = flags(ClaimFlags, input, { mode: '--mode', worktree: '--worktree', branch: '--branch' });
  const { state, wu, version, stream } = await load(env, wuId);
  refuseTerminal(wu, 'claim');
  const me = sessionOf(env);
  const claim = wu.claim !== null && wu.claim.seq >= wu.window_start ? wu.claim : null;
  let takeoverFrom: string | null = null;
  if (isClaimed(wu)) {
    const claimant = claim?.session_id ?? null;
    if (claimant !== null && claimant === me) return { wu_id: wuId, action: WuAction.claim, appended: [], yaml_status: wu.yaml_status };
    if (claimant !== null && sessionIsLive(state, claimant, env.now)) {
      throw new BatonError(WorkUnitErrorCode.ALREADY_CLAIMED, `${wuId} is claimed by live session ${claimant}`, { wu_id: wuId, claimed_by: claimant });
    }
    takeoverFrom = claimant;
  }
  requireLegal(wu, { type: 'CLAIM' }, 'claim');
  const mode: ClaimedMode = f.mode ?? (wu.def.claimed_mode as ClaimedMode | undefined) ?? env.config.orchestration.default_claim_mode;
  if (f.worktree !== undefined && !isWorktreeMode(mode)) throw invalidInput(`a ${mode} claim has no worktree (the root checkout is its workspace)`, '--worktree');
  const lane = wu.def.lane ?? 'default';
  const data = {
    wu_id: wuId,
    session_id: me,
    mode,
    worktree_path: isWorktreeMode(mode) ? (f.worktree ?? defaultWorktree(env.config.orchestration.worktrees_dir, lane, wuId)) : null,
    branch: f.branch ?? defaultBranch(lane, wuId),
    takeover_from: takeoverFrom,
  };
  try {
    const result = await appendAs(env, [{ type: 'wu.claimed', stream, data }], { [stream]: version });
    const { wu_id: _w, ...claimed } = data;
    return { wu_id: wuId, action: WuAction.claim, appended: appendedOf(result), yaml_status: 'in_progress', claim: claimed };
  } catch (error) {
    // Losing a claim race: re-read once; the winner's claim then gives ALREADY_CLAIMED.
    if (error instanceof ConflictError && !retried) return claimWu(env, wuId, input, true);
    throw error;
  }
}

const CheckpointFlags = z.strictObject({ note: requiredText(4000), progress: text(4000).optional(), next_steps: text(4000).optional() });

export async function checkpointWu(env: WorkUnitsEnv, wuId: string, input: { note?: string; progress?: string; nextSteps?: string }): Promise<LifecycleResult> {
  const f = flags(CheckpointFlags, { note: input.note, progress: input.progress, next_steps: input.nextSteps }, { note: '--note', progress: '--progress', next_steps: '--next-steps' });
  const { wu, version, stream } = await load(env, wuId);
  refuseTerminal(wu, 'checkpoint');
  requireLegal(wu, { type: 'CHECKPOINT' }, 'checkpoint', WorkUnitErrorCode.NOT_CLAIMED);
  const data = { wu_id: wuId, session_id: sessionOf(env), note: f.note, progress: f.progress ?? null, next_steps: f.next_steps ?? null };
  const result = await appendAs(env, [{ type: 'wu.checkpointed', stream, data }], { [stream]: version });
  return { wu_id: wuId, action: WuAction.checkpoint, appended: appendedOf(result), yaml_status: wu.yaml_status };
}

export async function returnWu(env: WorkUnitsEnv, wuId: string, input: { note?: string }): Promise<LifecycleResult> {
  const f = flags(z.strictObject({ note: requiredText(4000).optional() }), input, { note: '--note' });
  const { wu, version, stream } = await load(env, wuId);
  refuseTerminal(wu, 'return');
  requireLegal(wu, { type: 'RETURN' }, 'return', WorkUnitErrorCode.NOT_CLAIMED);
  // Nothing to add when the window's latest evidence is already a return.
  const later = [wu.claim, wu.checkpoint, wu.unblock, wu.pickup].filter((m) => m !== null && m.seq >= wu.window_start).map((m) => m!.seq);
  if (wu.returned !== null && wu.returned.seq >= wu.window_start && later.every((s) => s < wu.returned!.seq)) {
    return { wu_id: wuId, action: WuAction.return, appended: [], yaml_status: wu.yaml_status };
  }
  const data = { wu_id: wuId, session_id: sessionOf(env), note: f.note ?? null, source: 'manual' as const };
  const result = await appendAs(env, [{ type: 'wu.worker_returned', stream, data }], { [stream]: version });
  return { wu_id: wuId, action: WuAction.return, appended: appendedOf(result), yaml_status: wu.yaml_status };
}

export async function blockWu(env: WorkUnitsEnv, wuId: string, input: { reason?: string }): Promise<LifecycleResult> {
  const f = flags(z.strictObject({ reason: requiredText(2000) }), input, { reason: '--reason' });
  const { wu, version, stream } = await load(env, wuId);
  refuseTerminal(wu, 'block');
  requireLegal(wu, { type: 'BLOCK' }, 'block');
  const result = await appendAs(env, [{ type: 'wu.blocked', stream, data: { wu_id: wuId, reason: f.reason.trim() } }], { [stream]: version });
  return { wu_id: wuId, action: WuAction.block, appended: appendedOf(result), yaml_status: 'blocked' };
}

export async function unblockWu(env: WorkUnitsEnv, wuId: string): Promise<LifecycleResult> {
  const { wu, version, stream } = await load(env, wuId);
  refuseTerminal(wu, 'unblock');
  requireLegal(wu, { type: 'UNBLOCK' }, 'unblock');
  const next = stepWu(wu.lifecycle, { type: 'UNBLOCK' })!;
  const result = await appendAs(env, [{ type: 'wu.unblocked', stream, data: { wu_id: wuId } }], { [stream]: version });
  return { wu_id: wuId, action: WuAction.unblock, appended: appendedOf(result), yaml_status: next.state === 'in_progress' ? 'in_progress' : 'ready' };
}

export async function releaseWu(env: WorkUnitsEnv, wuId: string, input: { reason?: string }): Promise<LifecycleResult> {
  const f = flags(z.strictObject({ reason: requiredText(2000).optional() }), input, { reason: '--reason' });
  const { wu, version, stream } = await load(env, wuId);
  refuseTerminal(wu, 'release');
  requireLegal(wu, { type: 'RELEASE' }, 'release', WorkUnitErrorCode.NOT_CLAIMED);
  const claim = wu.claim !== null && wu.claim.seq >= wu.window_start ? wu.claim : null;
  const claimant = claim?.session_id ?? null;
  // Releasing somebody else's claim must say why (§3.3).
  if (f.reason === undefined && (claimant === null || claimant !== sessionOf(env))) {
    throw invalidInput(`required when the actor is not the claimant${claimant ? ` (${claimant})` : ''}`, '--reason');
  }
  const data = { wu_id: wuId, reason: f.reason?.trim() ?? null, previous_claimant: claimant };
  const result = await appendAs(env, [{ type: 'wu.released', stream, data }], { [stream]: version });
  return { wu_id: wuId, action: WuAction.release, appended: appendedOf(result), yaml_status: 'ready' };
}
