import type { z } from 'zod';
import { checkId } from '../../../projections/tasks/refusal.js';
import { statusEnvelope } from '../../../projections/tasks/views.js';
import { storeExists, storePathOf, viewContext } from '../../tasks/env.js';
import { refusalsAsErrors } from '../../tasks/refusals.js';
import { loadStatusFolds } from '../../tasks/status-folds.js';
import { OrchestrationStatusEnvelope } from '../../tasks/validators.generated.js';
import type { AppContext } from '../context.js';
import type { OrchestrationStatusEnvelope as StatusSchema } from '../envelopes/tasks.js';
import { checkedCompiled } from '../envelopes/checked.js';
import * as storeAccess from '../store-access.js';
import { tasksEnv } from '../tasks-env.js';

export type StatusEnvelope = z.output<typeof StatusSchema>;

/**
 * `status` (tasks.md §9, §10.5): the last stopping point, scoped by the acting session when there is
 * one. Reads projections only (the tasks fold and the work-unit fold, for `baton.initiatives`);
 * appends nothing, marks nothing read, runs no probe.
 */
export async function readStatus(app: AppContext): Promise<StatusEnvelope> {
  // Compiled validators (events, config, envelope): no zod unless something fails a check; and
  // scripts/bundle-cli.mjs bundles the CLI's command with this into one file (a budget of 3 × `node -e 0`).
  app.useCompiledValidation(storeAccess);
  await app.resolveSession();
  if (app.session !== undefined) await refusalsAsErrors(() => checkId('session', app.session!, 'session'));
  const env = await tasksEnv(app);
  const { state, initiatives, held } = await loadStatusFolds(env);
  const envelope = await refusalsAsErrors(() =>
    statusEnvelope(state, viewContext(env), {
      storePath: storePathOf(env.workspace),
      storeExists: storeExists(env.workspace),
      scope: app.session,
      acting: app.session,
      initiatives,
      held,
    }),
  );
  return checkedCompiled(OrchestrationStatusEnvelope, envelope);
}
