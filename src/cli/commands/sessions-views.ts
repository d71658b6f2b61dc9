import { checkId } from '../../../projections/tasks/refusal.js';
import { sessionEnvelope, sessionsEnvelope } from '../../../projections/tasks/views.js';
import { loadTasks, viewContext } from '../../tasks/env.js';
import { refusalsAsErrors } from '../../tasks/refusals.js';
import type { CommandContext } from '../context.js';
import { OrchestrationSessionsEnvelope, OrchestrationSessionViewEnvelope } from '../../app/envelopes/tasks.js';
import { tasksEnv } from '../../app/tasks-env.js';
import { humanSession, humanSessions } from './task-human.js';

/** `baton sessions` and `baton session <id>` (tasks.md §10.1). Append nothing. */
export async function sessionsList(ctx: CommandContext): Promise<void> {
  const env = await tasksEnv(ctx);
  const { state } = await loadTasks(env);
  ctx.output.emit(OrchestrationSessionsEnvelope, sessionsEnvelope(state, viewContext(env)), humanSessions);
}

export async function sessionShow(ctx: CommandContext, given: string): Promise<void> {
  const id = await ctx.sessionIdFor(given);
  await refusalsAsErrors(() => checkId('session', id));
  const env = await tasksEnv(ctx);
  const { state } = await loadTasks(env);
  const envelope = await refusalsAsErrors(() => sessionEnvelope(state, viewContext(env), id));
  ctx.output.emit(OrchestrationSessionViewEnvelope, envelope, humanSession);
}
