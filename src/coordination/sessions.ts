import { SessionStatus, type ClientType, type EndStatus } from '../../events/coordination/identities.js';
import type { Decision } from '../../deciders/decision.js';
import { decideHeartbeat, decideSessionEnd, decideSessionStart, type SessionCommandState, type StartSession } from '../../deciders/sessions.js';
import { effectiveStatus } from '../../projections/coordination/sessions.js';
import { applyCoordination, type SessionRecord } from '../../projections/coordination/state.js';
import { BatonError, ErrorCode } from '../errors.js';
import { handleCommand } from '../store/handle-command.js';
import { actingIn } from './acting.js';
import { actorOf, loadState, type CoordinationEnv } from './env.js';
import { newSessionId } from './ids.js';

export { chooseDisplayName } from '../../deciders/sessions.js';

/** `session start | heartbeat | end` (coordination.md §2, §3): the deciders of deciders/sessions.ts, run by the one command handler. */
export interface StartSessionInput {
  agent_identity?: string | undefined;
  role?: string | undefined;
  wu_id?: string | undefined;
  lane?: string | undefined;
  goal?: string | undefined;
  branch?: string | undefined;
  worktree?: string | undefined;
  client_type?: ClientType | undefined;
  /** A session id chosen by the caller (a client integration that derives it); default: a new random one. */
  session_id?: string | undefined;
}

export interface SessionResult {
  session: SessionRecord;
  /** Effective status as of the command's clock. */
  status: SessionStatus;
  appended: boolean;
}

export function sessionNotFound(id: string): BatonError {
  return new BatonError(ErrorCode.UNKNOWN_ID, `Session ${id} not found`, { session_id: id });
}

/**
 * Heartbeats of many writers race on one session stream: a lost race is read and decided again
 * more often than other commands before it is CONFLICT.
 */
const SESSION_RETRIES = 20;

/** The fold, and the version of `session/<id>` read before it (a racing append then conflicts). */
function readSession(env: CoordinationEnv, sessionId: string): () => Promise<SessionCommandState> {
  return async () => {
    const version = await env.store.streamVersion(`session/${sessionId}`);
    return { version, coordination: (await loadState(env)).state };
  };
}

/** A session command through the one command handler; the appended event is folded into the state read. */
function runSessionCommand<R>(
  env: CoordinationEnv,
  read: () => Promise<SessionCommandState>,
  decide: (state: SessionCommandState) => Decision<R> | null,
  retries?: number,
) {
  return handleCommand(
    {
      store: env.store,
      catalog: env.catalog,
      actor: actorOf(env),
      now: env.now,
      read,
      evolve: (state, event) => ({ ...state, coordination: applyCoordination(state.coordination, event) }),
      acting: actingIn(env, (state: SessionCommandState) => state.coordination),
    },
    decide,
    retries,
  );
}

export async function startSession(env: CoordinationEnv, input: StartSessionInput): Promise<SessionResult> {
  const sessionId = input.session_id ?? newSessionId();
  const command: StartSession = {
    sessionId,
    displayNamePool: env.settings.displayNamePool,
    ttlSeconds: env.settings.sessionTtlSeconds,
    agentIdentity: input.agent_identity ?? env.envIdentity,
    role: input.role,
    wuId: input.wu_id,
    lane: input.lane,
    goal: input.goal,
    branch: input.branch,
    worktree: input.worktree,
    clientType: input.client_type,
  };
  await runSessionCommand(
    env,
    async () => ({ version: 0, coordination: (await loadState(env)).state }),
    (state) => decideSessionStart(command, state.coordination),
    0,
  );
  // Another start may have raced us to the same name: the fold settles it; print what it says.
  const after = await loadState(env);
  const session = after.state.sessions.get(sessionId)!;
  return { session, status: SessionStatus.active, appended: true };
}

/** The session after the command, and its effective status as of the command's clock. */
function resultOf(env: CoordinationEnv, sessionId: string, state: SessionCommandState, appended: boolean): SessionResult {
  const session = state.coordination.sessions.get(sessionId)!;
  return { session, status: effectiveStatus(session, env.now), appended };
}

export async function heartbeatSession(env: CoordinationEnv, sessionId: string): Promise<SessionResult> {
  const handled = await runSessionCommand(env, readSession(env, sessionId), (state) => decideHeartbeat({ sessionId }, state), SESSION_RETRIES);
  return resultOf(env, sessionId, handled.state, handled.appended.length > 0);
}

/** Ending once; the same status again appends nothing; another status is SESSION_ENDED. */
export async function endSession(env: CoordinationEnv, sessionId: string, status: EndStatus): Promise<SessionResult> {
  const handled = await runSessionCommand(env, readSession(env, sessionId), (state) => decideSessionEnd({ sessionId, status }, state), SESSION_RETRIES);
  return resultOf(env, sessionId, handled.state, handled.appended.length > 0);
}
