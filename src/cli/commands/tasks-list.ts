import { parseStateFilter } from '../../../projections/tasks/projections.js';
import { checkId } from '../../../projections/tasks/refusal.js';
import { tasksEnvelope } from '../../../projections/tasks/views.js';
import { loadTasks, viewContext } from '../../tasks/env.js';
import { refusalsAsErrors } from '../../tasks/refusals.js';
import type { CommandContext } from '../context.js';
import { OrchestrationTasksEnvelope } from '../../app/envelopes/tasks.js';
import { tasksEnv } from '../../app/tasks-env.js';
import { humanTasks } from './task-human.js';

/** `baton tasks [--state S] [--session-id S]`: tasks in creation order. Appends nothing. */
export async function tasksList(ctx: CommandContext, given: { state?: string; sessionId?: string }): Promise<void> {
  const flags = given.sessionId !== undefined ? { ...given, sessionId: await ctx.sessionIdFor(given.sessionId) } : given;
  const state = flags.state === undefined ? undefined : await refusalsAsErrors(() => parseStateFilter(flags.state!));
  if (flags.sessionId !== undefined) await refusalsAsErrors(() => checkId('session', flags.sessionId!, '--session-id'));
  const env = await tasksEnv(ctx);
  const folded = (await loadTasks(env)).state;
  const envelope = await refusalsAsErrors(() => tasksEnvelope(folded, viewContext(env), { state, sessionId: flags.sessionId }));
  ctx.output.emit(OrchestrationTasksEnvelope, envelope, humanTasks);
}
