import { listTasks } from '../../app/commands/task-views.js';
import type { CommandContext } from '../context.js';
import { OrchestrationTasksEnvelope } from '../../app/envelopes/tasks.js';
import { humanTasks } from './task-human.js';

/** `baton tasks [--state S] [--session-id S]`: tasks in creation order (src/app/commands/task-views.ts). Appends nothing. */
export async function tasksList(ctx: CommandContext, flags: { state?: string; sessionId?: string }): Promise<void> {
  ctx.output.emit(OrchestrationTasksEnvelope, await listTasks(ctx, { state: flags.state, session_id: flags.sessionId }), humanTasks);
}
