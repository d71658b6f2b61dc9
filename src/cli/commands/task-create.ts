import { createTask, type CreateTaskFlags } from '../../tasks/create-task.js';
import type { CommandContext } from '../context.js';
import { tasksEnv } from '../../app/tasks-env.js';
import { emitTask } from './task-emit.js';

/** `baton task create` (tasks.md §6). */
export async function taskCreate(ctx: CommandContext, flags: CreateTaskFlags): Promise<void> {
  const env = await tasksEnv(ctx);
  const task = await createTask(env, flags);
  const { state } = await import('../../tasks/env.js').then((m) => m.loadTasks(env));
  await emitTask(ctx, env, state, task.id);
}
