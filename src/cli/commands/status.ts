import { checkId } from '../../../projections/tasks/refusal.js';
import { statusEnvelope } from '../../../projections/tasks/views.js';
import { storeExists, storePathOf, viewContext } from '../../tasks/env.js';
import { refusalsAsErrors } from '../../tasks/refusals.js';
import { loadStatusFolds } from '../../tasks/status-folds.js';
import type { CommandContext } from '../context.js';
import { OrchestrationStatusEnvelope } from '../envelopes-tasks.js';
import { tasksEnv } from '../tasks-env.js';
import { humanStatus } from './task-human.js';

/**
 * `baton status` (tasks.md §9, §10.5): the last stopping point, scoped by `--session` when given.
 * Reads projections only (the tasks fold and the work-unit fold, for `baton.initiatives`);
 * appends nothing, marks nothing read, runs no probe.
 */
export async function status(ctx: CommandContext): Promise<void> {
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
  ctx.output.emit(OrchestrationStatusEnvelope, envelope, humanStatus);
}
