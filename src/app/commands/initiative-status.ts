import type { z } from 'zod';
import { initiativePlan, initiativeStatus, type OrchestrateOptions } from '../../work-units/orchestrate.js';
import { InitiativePlanEnvelope, InitiativeStatusEnvelope } from '../../work-units/validators.generated.js';
import type { AppContext } from '../context.js';
import { checkedCompiled } from '../envelopes/checked.js';
import type { InitiativePlanEnvelope as InitiativePlanSchema, InitiativeStatusEnvelope as InitiativeStatusSchema } from '../envelopes/work-units.js';
import * as storeAccess from '../store-access.js';
import { workUnitsEnv } from '../work-units-env.js';

export type InitiativeStatusEnvelope = z.output<typeof InitiativeStatusSchema>;
export type InitiativePlanEnvelope = z.output<typeof InitiativePlanSchema>;

/**
 * `orchestrate status` (work-units.md §9): the status document under its envelope. Like `mem inbox`,
 * it runs on compiled validators (events, config, envelope), so it loads neither zod nor `yaml` nor
 * xstate unless something fails a check, and scripts/bundle-cli.mjs bundles the CLI's command with
 * this into one file: `status` of a large initiative has a budget of 3 × `node -e 0`.
 */
export async function readInitiativeStatus(app: AppContext, input: { initiative: string } & OrchestrateOptions): Promise<InitiativeStatusEnvelope> {
  app.useCompiledValidation(storeAccess);
  const { initiative, ...options } = input;
  const env = await workUnitsEnv(app);
  const { document, state } = await initiativeStatus(env, initiative, options);
  // The latest attempt's files are rewritten only if there is an attempt (bundle.ts, with the
  // handoff renderers, is loaded only then).
  if ((state.attempts[initiative]?.length ?? 0) > 0) await (await import('../../work-units/bundle.js')).refreshLatestAttempt(env, initiative, document, state);
  (await import('../../work-units/stamps.js')).restoreStamps(env, state);
  const { generated_at, ...rest } = document;
  return checkedCompiled(InitiativeStatusEnvelope, { v: 1, type: 'initiative_status', generated_at, ...rest });
}

/**
 * `orchestrate plan` (work-units.md §9): the waves the next run would launch, a dry run (the probes
 * look, their results stay in memory; nothing is appended or written). Compiled validators, as status.
 */
export async function readInitiativePlan(app: AppContext, input: { initiative: string } & OrchestrateOptions): Promise<InitiativePlanEnvelope> {
  app.useCompiledValidation(storeAccess);
  const { initiative, ...options } = input;
  const { generated_at, ...rest } = await initiativePlan(await workUnitsEnv(app), initiative, options);
  return checkedCompiled(InitiativePlanEnvelope, { v: 1, type: 'initiative_plan', generated_at, dry_run: true, ...rest });
}
