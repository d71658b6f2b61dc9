import { z } from 'zod';
import { wizardSession } from '../../../projections/tasks/wizard-shapes.js';
import {
  agentIdentity,
  CLIENT_TYPES,
  END_STATUSES,
  lane,
  optionalText,
  role,
  wuId,
  type EndStatus,
  type SessionStatus,
} from '../../../events/coordination/identities.js';
import { refuseInput } from '../../../deciders/refusal.js';
import type { SessionRecord } from '../../../projections/coordination/state.js';
import { endSession, heartbeatSession, startSession } from '../../coordination/sessions.js';
import { BatonError, ErrorCode } from '../../errors.js';
import { coordinationEnv } from '../coordination-env.js';
import type { AppContext } from '../context.js';
import { checked } from '../envelopes/checked.js';
import { OrchestrationSessionEnvelope } from '../envelopes/coordination.js';
import { checkInput, given } from './input.js';

export type SessionEnvelope = z.output<typeof OrchestrationSessionEnvelope>;

/** A session to start (coordination.md §5), by the domain's names. */
export interface StartSessionInput {
  agent_identity?: string | undefined;
  role?: string | undefined;
  wu?: string | undefined;
  lane?: string | undefined;
  goal?: string | undefined;
  branch?: string | undefined;
  worktree?: string | undefined;
  client?: string | undefined;
}

const StartFields = z.strictObject({
  agent_identity: agentIdentity.optional(),
  role: role.optional(),
  wu: wuId.optional(),
  lane: lane.optional(),
  goal: optionalText(2000).optional(),
  branch: optionalText(250).optional(),
  worktree: optionalText(1000).optional(),
  client: z.enum(CLIENT_TYPES, `must be one of ${CLIENT_TYPES.join(', ')}`).optional(),
});

/** `session start`: a new session, recorded as itself (the acting session, if any, does not start it). */
export async function startSessionEnvelope(app: AppContext, input: StartSessionInput): Promise<SessionEnvelope> {
  const fields = checkInput(StartFields, given({ ...input }));
  const env = await coordinationEnv(app, { actAsSession: false });
  const result = await startSession(env, {
    agent_identity: fields.agent_identity,
    role: fields.role,
    wu_id: fields.wu,
    lane: fields.lane,
    goal: fields.goal,
    branch: fields.branch,
    worktree: fields.worktree,
    client_type: fields.client,
  });
  return sessionEnvelope(app.now, env.workspace, result.session, result.status);
}

/** `session end`: the session (by id or live display name) ends with `status`; ending it again appends nothing. */
export async function endSessionEnvelope(
  app: AppContext,
  input: { session_id: string; status: string },
): Promise<{ envelope: SessionEnvelope; appended: boolean }> {
  if (!(END_STATUSES as readonly string[]).includes(input.status))
    throw refuseInput(`must be one of ${END_STATUSES.join(', ')}, got "${input.status}"`, 'status');
  const env = await coordinationEnv(app);
  // The session is named by id or by a live display name, resolved in the command's one read.
  const result = await endSession(env, input.session_id, input.status as EndStatus, 'session_id');
  return { envelope: sessionEnvelope(app.now, env.workspace, result.session, result.status), appended: result.appended };
}

/**
 * `session heartbeat [session_id]`: the session (by id or live display name; default the acting
 * session) says it is alive. Its actor is the session itself: it is the one saying so.
 */
export async function heartbeatSessionEnvelope(app: AppContext, input: { session_id?: string | undefined }): Promise<SessionEnvelope> {
  const target = input.session_id ?? app.session;
  if (target === undefined) {
    const say = (name: string, session: string): string => `${name}: give a session id, or act as one with ${session} / BATON_SESSION`;
    throw new BatonError(ErrorCode.INVALID_INPUT, say('session_id', 'session'), { field: 'session_id' }, { field: 'session_id', say, others: ['session'] });
  }
  const env = await coordinationEnv(app, { actAsSession: false });
  const result = await heartbeatSession(env, target, input.session_id !== undefined ? 'session_id' : 'session');
  return sessionEnvelope(app.now, env.workspace, result.session, result.status);
}

/** tasks.md's `orchestration_session` for one session (its tasks are the session views' to list). */
export function sessionEnvelope(now: string, workspace: string, session: SessionRecord, status: SessionStatus): SessionEnvelope {
  return checked(OrchestrationSessionEnvelope, {
    v: 1,
    type: 'orchestration_session',
    generated_at: now,
    generatedAt: now,
    installDir: workspace,
    session: wizardSession(session, status, workspace),
    tasks: [],
    baton: { subagents: [] },
  });
}
