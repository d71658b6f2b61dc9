import { SESSION_ID_PATTERN } from '../../../events/coordination/identities.js';
import { heartbeatSession } from '../../coordination/sessions.js';
import { invalidInput } from '../../errors.js';
import type { CommandContext } from '../context.js';
import { coordinationEnv } from '../../app/coordination-env.js';
import { emitSession, printSession } from './session-envelope.js';
import { endSessionEnvelope } from '../../app/commands/sessions.js';

function checkSessionId(raw: string, field: string): string {
  if (!SESSION_ID_PATTERN.test(raw)) throw invalidInput(`Expected session_<id>, got '${raw}'`, field);
  return raw;
}

export async function sessionHeartbeat(ctx: CommandContext, id: string | undefined): Promise<void> {
  await ctx.resolveSession();
  const target = id !== undefined ? await ctx.sessionIdFor(id) : ctx.session;
  if (target === undefined) throw invalidInput('give a session id, or act as one with --session / BATON_SESSION', 'id');
  const sessionId = checkSessionId(target, id !== undefined ? 'id' : '--session');
  const env = await coordinationEnv(ctx, { actAsSession: false });
  // The heartbeat's actor is the session itself: it is the one saying it is alive.
  const result = await heartbeatSession({ ...env, session: sessionId }, sessionId);
  emitSession(ctx, env.workspace, result.session, result.status);
}

export async function sessionEnd(ctx: CommandContext, id: string, status: string): Promise<void> {
  ctx.output.nameArguments({ session_id: 'id' });
  const { envelope, appended } = await endSessionEnvelope(ctx, { session_id: id, status });
  printSession(ctx, envelope, appended ? [] : ['(already ended; nothing appended)']);
}
