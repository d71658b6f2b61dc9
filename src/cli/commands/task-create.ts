import { createTaskEnvelope } from '../../app/commands/tasks.js';
import type { CreateTaskFlags } from '../../tasks/create-task.js';
import type { CommandContext } from '../context.js';
import { printTask } from './task-emit.js';

/** `baton task create` (tasks.md §6): src/app/commands/tasks.ts, printed. */
export async function taskCreate(ctx: CommandContext, flags: CreateTaskFlags): Promise<void> {
  printTask(ctx, await createTaskEnvelope(ctx, flags));
}
