import { decideAndAppend } from '../../tasks/commit.js';
import { decideTransition, parseTransition, type TransitionFlags } from '../../tasks/transition-task.js';
import { refusalsAsErrors } from '../../tasks/refusals.js';
import type { CommandContext } from '../context.js';
import { tasksEnv } from '../tasks-env.js';
import { emitTask } from './task-emit.js';

/** `baton task transition <id> <state>` (tasks.md §5): one event, decided on the state read. */
export async function taskTransition(ctx: CommandContext, id: string, state: string, flags: TransitionFlags): Promise<void> {
  const request = await refusalsAsErrors(() => parseTransition(id, state, flags));
  const env = await tasksEnv(ctx);
  const committed = await decideAndAppend(env, (folded) => decideTransition(folded, request, env.actor, env.now));
  await emitTask(ctx, env, committed.state, request.taskId);
}
