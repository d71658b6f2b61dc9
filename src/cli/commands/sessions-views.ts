import { listSessions, showSession } from '../../app/commands/task-views.js';
import type { CommandContext } from '../context.js';
import { OrchestrationSessionsEnvelope, OrchestrationSessionViewEnvelope } from '../../app/envelopes/tasks.js';
import { humanSession, humanSessions } from './task-human.js';

/** `baton sessions` and `baton session <id>` (tasks.md §10.1): src/app/commands/task-views.ts, printed. `sessions` records the lapses it notices. */
export async function sessionsList(ctx: CommandContext): Promise<void> {
  ctx.output.emit(OrchestrationSessionsEnvelope, await listSessions(ctx), humanSessions);
}

export async function sessionShow(ctx: CommandContext, given: string): Promise<void> {
  ctx.output.emit(OrchestrationSessionViewEnvelope, await showSession(ctx, { session_id: given }), humanSession);
}
