import { ownTaskEnvelope } from '../../app/commands/tasks.js';
import type { CommandContext } from '../context.js';
import { printTask } from './task-emit.js';

/** `task own`'s flags, as commander gives them. */
export interface TaskOwnFlags {
  branch?: string;
  worktree?: string;
  pr?: string;
  prState?: string;
  file?: string;
}

/** `baton task own <id> (--branch | --worktree | --pr | --file)` (tasks.md §7): src/app/commands/tasks.ts, printed. */
export async function taskOwn(ctx: CommandContext, id: string, flags: TaskOwnFlags): Promise<void> {
  const { branch, worktree, pr, prState, file } = flags;
  printTask(ctx, await ownTaskEnvelope(ctx, { task: id, branch, worktree, pr, pr_state: prState, file }));
}
