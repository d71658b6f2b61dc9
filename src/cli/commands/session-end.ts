import { END_STATUSES, SESSION_ID_PATTERN, type EndStatus } from '../../../events/coordination/identities.js';
import { endSession, heartbeatSession } from '../../coordination/sessions.js';
import { invalidInput } from '../../errors.js';
import type { CommandContext } from '../context.js';
import { coordinationEnv } from '../coordination-env.js';
import { emitSession } from './session-envelope.js';

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
  const sessionId = checkSessionId(await ctx.sessionIdFor(id), 'id');
  if (!(END_STATUSES as readonly string[]).includes(status)) throw invalidInput(`must be one of ${END_STATUSES.join(', ')}, got "${status}"`, '--status');
  const env = await coordinationEnv(ctx);
  const result = await endSession(env, sessionId, status as EndStatus);
  emitSession(ctx, env.workspace, result.session, result.status, result.appended ? [] : ['(already ended; nothing appended)']);
}
