import { isAbsolute, posix, relative, sep } from 'node:path';
import { z } from 'zod';
import type { Decision } from '../../deciders/decision.js';
import { decideLapses, withLapses } from '../../deciders/sessions.js';
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
import { branchName, CLAIMED_MODES, codePath, requiredText, text, worktreePath, type ClaimedMode } from '../../events/work-units/vocabulary.js';
import { ownValue } from '../../projections/own-keys.js';
import type { WorkUnitsState } from '../../projections/work-units/state.js';
import { appendedEvents, checkFields, checkWuId, readStreamAndFold, runWorkUnitsCommand, actingSessionOf, type WorkUnitsEnv } from './env.js';

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
  /** The WU was read from a YAML file (`observation.wu_yaml`): its `yaml_status` is the status that file says. */
  has_yaml: boolean;
}

/** Who acts on which WU, as the deciders read it. */
function actor(env: WorkUnitsEnv, wuId: string): WuActor {
  return { wuId: checkWuId(wuId), session: actingSessionOf(env), actor: env.actor, now: env.now };
}

/** Read the WU stream's version, then the fold; decide; append with that version; retry a lost race. */
async function run(env: WorkUnitsEnv, wuId: string, action: WuAction, decide: (state: WuCommandState) => Decision<WuOutcome>): Promise<LifecycleResult> {
  const handled = await runWorkUnitsCommand(env, readStreamAndFold(env, `wu/${wuId}`), decide);
  const hasYaml = (ownValue(handled.state.fold.wus, wuId)?.yaml_content_hash ?? null) !== null;
  return { wu_id: wuId, action, appended: appendedEvents(handled.appended), ...handled.decision!.outcome, has_yaml: hasYaml };
}

/** Each lifecycle command's fields by their domain names: the app layer checks its input with these too. */
export const ClaimFields = z.strictObject({
  mode: z.enum(CLAIMED_MODES, `must be one of ${CLAIMED_MODES.join(', ')}`).optional(),
  worktree: worktreePath.optional(),
  branch: branchName.optional(),
  takeover: z.boolean().optional(),
  force: z.boolean().optional(),
  reason: requiredText(2000).optional(),
  paths: z.array(codePath).min(1).max(100).optional(),
});

export interface ClaimInput {
  mode?: string | undefined;
  worktree?: string | undefined;
  branch?: string | undefined;
  /** Take over a holder whose lease lapsed; needs `reason`. */
  takeover?: boolean | undefined;
  /** Claim despite unfinished dependencies or a lane at its WIP limit; needs `reason`. */
  force?: boolean | undefined;
  reason?: string | undefined;
  /** Paths or globs reserved for the holder besides the WU's code_paths. */
  paths?: string[] | undefined;
}

export async function claimWu(env: WorkUnitsEnv, wuId: string, input: ClaimInput): Promise<LifecycleResult> {
  const f = checkFields(ClaimFields, input);
  const who = actor(env, wuId);
  const defaults = { claimMode: env.config.orchestration.default_claim_mode as ClaimedMode, worktreesDir: env.config.orchestration.worktrees_dir };
  const options = { takeover: f.takeover, force: f.force, reason: f.reason, paths: f.paths, config: env.config };
  // The lapses the claim notices are recorded in its batch: a lapsed holder's WU taken over says why it was free.
  return run(env, wuId, WuAction.claim, (state) =>
    withLapses(
      decideClaim(
        {
          ...who,
          ...options,
          mode: f.mode,
          worktree: f.worktree,
          branch: f.branch,
          defaults,
          sessionWorkspace: sessionWorkspace(env, state.fold, who.session),
        },
        state,
      ),
      decideLapses(state.fold, env.now, env.actor),
    ),
  );
}

/**
 * The worktree and branch the claiming session started with (`session start --worktree --branch`):
 * what its claim records unless the claim names its own. The worktree as a workspace-relative POSIX
 * path, the form `wu explain`'s probe resolves against the workspace (an absolute one is made
 * relative to it).
 */
function sessionWorkspace(env: WorkUnitsEnv, fold: WorkUnitsState, session: string | null): { worktree?: string; branch?: string } {
  const facts = session === null ? undefined : ownValue(fold.sessions, session);
  if (facts === undefined) return {};
  const worktree = facts.worktree === undefined ? undefined : workspaceRelative(env.workspace, facts.worktree);
  const branch = facts.branch !== undefined && branchName.safeParse(facts.branch).success ? facts.branch : undefined;
  return { ...(worktree !== undefined ? { worktree } : {}), ...(branch !== undefined ? { branch } : {}) };
}

function workspaceRelative(workspace: string, path: string): string | undefined {
  const relativePath = isAbsolute(path) ? relative(workspace, path).split(sep).join('/') : posix.normalize(path.split(sep).join('/'));
  const trimmed = relativePath.replace(/\/+$/, '');
  if (trimmed === '' || trimmed === '.') return '.';
  return worktreePath.safeParse(trimmed).success ? trimmed : undefined;
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
