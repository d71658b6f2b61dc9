import { endSessionEnvelope, heartbeatSessionEnvelope } from '../../app/commands/sessions.js';
import type { CommandContext } from '../context.js';
import { printSession } from './session-envelope.js';

/** `baton session heartbeat [id]` and `baton session end <id>`: src/app/commands/sessions.ts, printed. */
export async function sessionHeartbeat(ctx: CommandContext, id: string | undefined): Promise<void> {
  ctx.output.nameArguments({ session_id: 'id' });
  printSession(ctx, await heartbeatSessionEnvelope(ctx, { session_id: id }));
}

export async function sessionEnd(ctx: CommandContext, id: string, status: string): Promise<void> {
  ctx.output.nameArguments({ session_id: 'id' });
  const { envelope, appended } = await endSessionEnvelope(ctx, { session_id: id, status });
  printSession(ctx, envelope, appended ? [] : ['(already ended; nothing appended)']);
}
