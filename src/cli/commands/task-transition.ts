import { transitionTask } from '../../app/commands/tasks.js';
import type { CommandContext } from '../context.js';
import { printTask } from './task-emit.js';

/** `task transition`'s flags, as commander gives them. */
export interface TaskTransitionFlags {
  reason?: string;
  checkpointId?: string;
  checkpointKind?: string;
  checkpointSummary?: string;
  supersededBy?: string;
  summary?: string;
  errorClass?: string;
  errorMessage?: string;
}

/** `baton task transition <id> <state>`: src/app/commands/tasks.ts, printed. */
export async function taskTransition(ctx: CommandContext, id: string, state: string, flags: TaskTransitionFlags): Promise<void> {
  const envelope = await transitionTask(ctx, {
    task: id,
    state,
    reason: flags.reason,
    checkpoint_id: flags.checkpointId,
    checkpoint_kind: flags.checkpointKind,
    checkpoint_summary: flags.checkpointSummary,
    superseded_by: flags.supersededBy,
    summary: flags.summary,
    error_class: flags.errorClass,
    error_message: flags.errorMessage,
  });
  printTask(ctx, envelope);
}
