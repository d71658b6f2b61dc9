import { decideTransition } from '../../../deciders/tasks.js';
import { runTasksCommand } from '../../tasks/commit.js';
import { refusalsAsErrors } from '../../tasks/refusals.js';
import { parseTransition, type TransitionFlags } from '../../tasks/transition-task.js';
import type { CommandContext } from '../context.js';
import { tasksEnv } from '../../app/tasks-env.js';
import { emitTask } from './task-emit.js';

/** `baton task transition <id> <state>` (tasks.md §5): one event, decided on the state read. */
export async function taskTransition(ctx: CommandContext, id: string, state: string, flags: TransitionFlags): Promise<void> {
  const request = await refusalsAsErrors(() => parseTransition(id, state, flags));
  const env = await tasksEnv(ctx);
  const handled = await runTasksCommand(env, (folded) => decideTransition(request, folded));
  await emitTask(ctx, env, handled.state, request.taskId);
}
