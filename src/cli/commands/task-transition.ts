import { transitionTask } from '../../app/commands/tasks.js';
import type { TransitionFlags } from '../../tasks/transition-task.js';
import type { CommandContext } from '../context.js';
import { printTask } from './task-emit.js';

/** `baton task transition <id> <state>`: src/app/commands/tasks.ts, printed. */
export async function taskTransition(ctx: CommandContext, id: string, state: string, flags: TransitionFlags): Promise<void> {
  printTask(ctx, await transitionTask(ctx, { task: id, state, ...flags }));
}
