import { z } from 'zod';
import type { Decision } from '../../deciders/decision.js';
import {
  decideBlock,
  decideCheckpoint,
  decideClaim,
  decideRelease,
  decideReturn,
  decideUnblock,
  type WuActor,
  type WuCommandState,
  type WuOutcome,
} from '../../deciders/work-units.js';
import { branchName, CLAIMED_MODES, requiredText, text, worktreePath, type ClaimedMode } from '../../events/work-units/vocabulary.js';
import { appendedEvents, checkFields, checkWuId, readStreamAndFold, runWorkUnitsCommand, sessionOf, type WorkUnitsEnv } from './env.js';

export { defaultBranch, defaultWorktree, laneSlug } from '../../deciders/work-units.js';

/**
 * The `wu` lifecycle commands of work-units.md §3.3: claim, checkpoint, return, block, unblock,
 * release. The fields are checked here by their domain names (`next_steps`); the rules are the deciders of deciders/work-units.ts, run
 * by the one command handler on the WU's stream version (read before the fold) and its fold.
 */
export const WuAction = { claim: 'claim', checkpoint: 'checkpoint', return: 'return', block: 'block', unblock: 'unblock', release: 'release' } as const;
export type WuAction = (typeof WuAction)[keyof typeof WuAction];

export interface LifecycleResult extends WuOutcome {
  wu_id: string;
  action: WuAction;
  appended: { seq: number; type: string }[];
}

/** Who acts on which WU, as the deciders read it. */
function actor(env: WorkUnitsEnv, wuId: string): WuActor {
  return { wuId: checkWuId(wuId), session: sessionOf(env), now: env.now };
}

/** Read the WU stream's version, then the fold; decide; append with that version; retry a lost race. */
async function run(env: WorkUnitsEnv, wuId: string, action: WuAction, decide: (state: WuCommandState) => Decision<WuOutcome>): Promise<LifecycleResult> {
  const handled = await runWorkUnitsCommand(env, readStreamAndFold(env, `wu/${wuId}`), decide);
  return { wu_id: wuId, action, appended: appendedEvents(handled.appended), ...handled.decision!.outcome };
}

/** Each lifecycle command's fields by their domain names: the app layer checks its input with these too. */
export const ClaimFields = z.strictObject({
  mode: z.enum(CLAIMED_MODES, `must be one of ${CLAIMED_MODES.join(', ')}`).optional(),
  worktree: worktreePath.optional(),
  branch: branchName.optional(),
});

export async function claimWu(env: WorkUnitsEnv, wuId: string, input: { mode?: string; worktree?: string; branch?: string }): Promise<LifecycleResult> {
  const f = checkFields(ClaimFields, input);
  const who = actor(env, wuId);
  const defaults = { claimMode: env.config.orchestration.default_claim_mode as ClaimedMode, worktreesDir: env.config.orchestration.worktrees_dir };
  return run(env, wuId, WuAction.claim, (state) => decideClaim({ ...who, mode: f.mode, worktree: f.worktree, branch: f.branch, defaults }, state));
}

export const CheckpointFields = z.strictObject({ note: requiredText(4000), progress: text(4000).optional(), next_steps: text(4000).optional() });
export const ReturnFields = z.strictObject({ note: requiredText(4000).optional() });
export const BlockFields = z.strictObject({ reason: requiredText(2000) });
export const ReleaseFields = z.strictObject({ reason: requiredText(2000).optional() });

export async function checkpointWu(
  env: WorkUnitsEnv,
  wuId: string,
  input: { note?: string; progress?: string; next_steps?: string },
): Promise<LifecycleResult> {
  const f = checkFields(CheckpointFields, input);
  const who = actor(env, wuId);
  return run(env, wuId, WuAction.checkpoint, (state) => decideCheckpoint({ ...who, note: f.note, progress: f.progress, nextSteps: f.next_steps }, state));
}

export async function returnWu(env: WorkUnitsEnv, wuId: string, input: { note?: string }): Promise<LifecycleResult> {
  const f = checkFields(ReturnFields, input);
  const who = actor(env, wuId);
  return run(env, wuId, WuAction.return, (state) => decideReturn({ ...who, note: f.note }, state));
}

export async function blockWu(env: WorkUnitsEnv, wuId: string, input: { reason?: string }): Promise<LifecycleResult> {
  const f = checkFields(BlockFields, input);
  const who = actor(env, wuId);
  return run(env, wuId, WuAction.block, (state) => decideBlock({ ...who, reason: f.reason }, state));
}

export async function unblockWu(env: WorkUnitsEnv, wuId: string): Promise<LifecycleResult> {
  const who = actor(env, wuId);
  return run(env, wuId, WuAction.unblock, (state) => decideUnblock(who, state));
}

export async function releaseWu(env: WorkUnitsEnv, wuId: string, input: { reason?: string }): Promise<LifecycleResult> {
  const f = checkFields(ReleaseFields, input);
  const who = actor(env, wuId);
  return run(env, wuId, WuAction.release, (state) => decideRelease({ ...who, reason: f.reason }, state));
}
