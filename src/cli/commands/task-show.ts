import { checkId } from '../../../projections/tasks/refusal.js';
import { loadTasks } from '../../tasks/env.js';
import { refusalsAsErrors } from '../../tasks/refusals.js';
import type { CommandContext } from '../context.js';
import { tasksEnv } from '../../app/tasks-env.js';
import { emitTask } from './task-emit.js';

/** `baton task <id>`: one task with its history and integrity findings. Appends nothing. */
export async function taskShow(ctx: CommandContext, id: string): Promise<void> {
  await refusalsAsErrors(() => checkId('task', id));
  const env = await tasksEnv(ctx);
  const { state } = await loadTasks(env);
  await emitTask(ctx, env, state, id);
}
