import type { z } from 'zod';
import {
  BlockFields,
  blockWu,
  CheckpointFields,
  checkpointWu,
  ClaimFields,
  claimWu,
  ReleaseFields,
  releaseWu,
  ReturnFields,
  returnWu,
  unblockWu,
  type ClaimInput as ClaimFieldsInput,
  type LifecycleResult,
  type WuAction,
} from '../../work-units/lifecycle.js';
import { doneWu } from '../../work-units/stamps.js';
import type { WorkUnitsEnv } from '../../work-units/env.js';
import type { AppContext } from '../context.js';
import { checked } from '../envelopes/checked.js';
import { WuDoneEnvelope, WuLifecycleEnvelope } from '../envelopes/work-units.js';
import { workUnitsEnv } from '../work-units-env.js';
import { checkInput, checkWuInput, given } from './input.js';

/**
 * The work-unit lifecycle (work-units.md §3.3) as the application runs it for every surface: the
 * input by its domain names, checked, then the domain function (src/work-units/lifecycle.ts: the
 * decider through the command handler), and the envelope checked against its schema.
 */
export type WuLifecycleEnvelope = z.output<typeof WuLifecycleEnvelope>;
export type WuDoneEnvelope = z.output<typeof WuDoneEnvelope>;

/** `wu claim`'s input: the WU, and the claim's fields as src/work-units/lifecycle.ts names them. */
export interface ClaimInput extends ClaimFieldsInput {
  wu: string;
}
export interface CheckpointInput {
  wu: string;
  note?: string | undefined;
  progress?: string | undefined;
  next_steps?: string | undefined;
}
export interface NoteInput {
  wu: string;
  note?: string | undefined;
}
export interface ReasonInput {
  wu: string;
  reason?: string | undefined;
}

/** The environment first (workspace, session, config, store: their errors come first, as before), then the fields, then the id. */
async function lifecycle(app: AppContext, wu: string, check: () => void, run: (env: WorkUnitsEnv) => Promise<LifecycleResult>): Promise<WuLifecycleEnvelope> {
  const env = await workUnitsEnv(app);
  check();
  checkWuInput(wu);
  return checked(WuLifecycleEnvelope, { v: 1, type: 'wu_lifecycle', generated_at: app.now, ...(await run(env)) });
}

export function claimWorkUnit(app: AppContext, input: ClaimInput): Promise<WuLifecycleEnvelope> {
  const fields = given({
    mode: input.mode,
    worktree: input.worktree,
    branch: input.branch,
    takeover: input.takeover,
    force: input.force,
    reason: input.reason,
    paths: input.paths,
  });
  return lifecycle(
    app,
    input.wu,
    () => checkInput(ClaimFields, fields),
    (env) => claimWu(env, input.wu, fields),
  );
}

export function checkpointWorkUnit(app: AppContext, input: CheckpointInput): Promise<WuLifecycleEnvelope> {
  const fields = given({ note: input.note, progress: input.progress, next_steps: input.next_steps });
  return lifecycle(
    app,
    input.wu,
    () => checkInput(CheckpointFields, fields),
    (env) => checkpointWu(env, input.wu, fields),
  );
}

export function returnWorkUnit(app: AppContext, input: NoteInput): Promise<WuLifecycleEnvelope> {
  const fields = given({ note: input.note });
  return lifecycle(
    app,
    input.wu,
    () => checkInput(ReturnFields, fields),
    (env) => returnWu(env, input.wu, fields),
  );
}

export function blockWorkUnit(app: AppContext, input: ReasonInput): Promise<WuLifecycleEnvelope> {
  const fields = given({ reason: input.reason });
  return lifecycle(
    app,
    input.wu,
    () => checkInput(BlockFields, fields),
    (env) => blockWu(env, input.wu, fields),
  );
}

export function unblockWorkUnit(app: AppContext, input: { wu: string }): Promise<WuLifecycleEnvelope> {
  return lifecycle(
    app,
    input.wu,
    () => undefined,
    (env) => unblockWu(env, input.wu),
  );
}

export function releaseWorkUnit(app: AppContext, input: ReasonInput): Promise<WuLifecycleEnvelope> {
  const fields = given({ reason: input.reason });
  return lifecycle(
    app,
    input.wu,
    () => checkInput(ReleaseFields, fields),
    (env) => releaseWu(env, input.wu, fields),
  );
}

/** Each lifecycle action by its name, for a surface that dispatches on it (the CLI's `wu <action>`). */
export const WORK_UNIT_ACTIONS: Record<WuAction, (app: AppContext, input: ClaimInput & CheckpointInput & ReasonInput) => Promise<WuLifecycleEnvelope>> = {
  claim: claimWorkUnit,
  checkpoint: checkpointWorkUnit,
  return: returnWorkUnit,
  block: blockWorkUnit,
  unblock: unblockWorkUnit,
  release: releaseWorkUnit,
};

/** `wu done`: the done stamp (work-units.md §3.4), recorded once. */
export async function finishWorkUnit(app: AppContext, input: { wu: string }): Promise<WuDoneEnvelope> {
  const env = await workUnitsEnv(app);
  checkWuInput(input.wu);
  return checked(WuDoneEnvelope, { v: 1, type: 'wu_done', generated_at: app.now, ...(await doneWu(env, input.wu)) });
}
