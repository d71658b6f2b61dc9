import { showTask } from '../../app/commands/task-views.js';
import type { CommandContext } from '../context.js';
import { printTask } from './task-emit.js';

/** `baton task <id>`: one task with its history and integrity findings (src/app/commands/task-views.ts). Appends nothing. */
export async function taskShow(ctx: CommandContext, id: string): Promise<void> {
  printTask(ctx, await showTask(ctx, { task: id }));
}
