import { ownTask } from '../../tasks/own-task.js';
import type { OwnFlags } from '../../tasks/ownership-input.js';
import type { CommandContext } from '../context.js';
import { tasksEnv } from '../../app/tasks-env.js';
import { emitTask } from './task-emit.js';
import { loadTasks } from '../../tasks/env.js';

/** `baton task own <id> (--branch | --worktree | --pr | --file)` (tasks.md §7). */
export async function taskOwn(ctx: CommandContext, id: string, flags: OwnFlags): Promise<void> {
  const env = await tasksEnv(ctx);
  const { task } = await ownTask(env, id, flags);
  await emitTask(ctx, env, (await loadTasks(env)).state, task.id);
}
