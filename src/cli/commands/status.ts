import { checkId } from '../../../projections/tasks/refusal.js';
import { statusEnvelope } from '../../../projections/tasks/views.js';
import { storeExists, storePathOf, viewContext } from '../../tasks/env.js';
import { refusalsAsErrors } from '../../tasks/refusals.js';
import { loadStatusFolds } from '../../tasks/status-folds.js';
import { OrchestrationStatusEnvelope } from '../../tasks/validators.generated.js';
import type { CommandContext } from '../context.js';
import * as storeAccess from '../store-access.js';
import { tasksEnv } from '../../app/tasks-env.js';
import { humanStatus } from './task-human.js';

/**
 * `baton status` (tasks.md §9, §10.5): the last stopping point, scoped by `--session` when given.
 * Reads projections only (the tasks fold and the work-unit fold, for `baton.initiatives`);
 * appends nothing, marks nothing read, runs no probe.
 */
export async function status(ctx: CommandContext): Promise<void> {
  // Compiled validators (events, config, envelope): no zod unless something fails a check; and
  // scripts/bundle-cli.mjs bundles the command into one file (a budget of 3 × `node -e 0`).
  ctx.useCompiledValidation(storeAccess);
  await ctx.resolveSession();
  if (ctx.session !== undefined) await refusalsAsErrors(() => checkId('session', ctx.session!, '--session'));
  const env = await tasksEnv(ctx);
  const { state, initiatives } = await loadStatusFolds(env);
  const envelope = await refusalsAsErrors(() =>
    statusEnvelope(state, viewContext(env), {
      storePath: storePathOf(env.workspace),
      storeExists: storeExists(env.workspace),
      scope: ctx.session,
      acting: ctx.session,
      initiatives,
    }),
  );
  await ctx.output.emitCompiled(OrchestrationStatusEnvelope, envelope, humanStatus);
}
