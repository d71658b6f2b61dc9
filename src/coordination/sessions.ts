import { SESSION_ID_PATTERN, SessionStatus, type ClientType, type EndStatus } from '../../events/coordination/identities.js';
import { refuseInput } from '../../deciders/refusal.js';
import type { Decision } from '../../deciders/decision.js';
import { decideHeartbeat, decideSessionEnd, decideSessionStart, type SessionCommandState, type StartSession } from '../../deciders/sessions.js';
import { effectiveStatus, sessionIdIn } from '../../projections/coordination/sessions.js';
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

/** A session command's state: the fold, the session the command names, and its stream's version as the fold counted it. */
interface TargetState extends SessionCommandState {
  sessionId: string;
}

/**
 * One read: the fold, in which the token (a session id, or a live session's display name) becomes
 * its session's id, and that stream's version (the fold counts every event on it, so a racing append
 * still conflicts).
 */
function readTarget(env: CoordinationEnv, token: string): () => Promise<TargetState> {
  return async () => {
    const { state } = await loadState(env);
    const sessionId = sessionIdIn(state, token);
    return { coordination: state, sessionId, version: state.session_streams.get(sessionId) ?? 0 };
  };
}

/** A session command through the one command handler; the appended event is folded into the state read. */
function runSessionCommand<S extends SessionCommandState, R>(
  env: CoordinationEnv,
  read: () => Promise<S>,
  decide: (state: S) => Decision<R> | null,
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
      acting: actingIn(env, (state: S) => state.coordination),
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

/**
 * `session heartbeat`: the session named (its id or a live session's display name) says it is alive.
 * `field` names the input a token that is neither came from.
 */
export async function heartbeatSession(env: CoordinationEnv, session: string, field = 'session_id'): Promise<SessionResult> {
  const handled = await runSessionCommand(
    env,
    readTarget(env, session),
    (state) => decideHeartbeat({ sessionId: requireSessionId(state.sessionId, field) }, state),
    SESSION_RETRIES,
  );
  return resultOf(env, handled.state.sessionId, handled.state, handled.appended.length > 0);
}

/** Ending once (the session by id or live display name); the same status again appends nothing; another status is SESSION_ENDED. */
export async function endSession(env: CoordinationEnv, session: string, status: EndStatus, field = 'session_id'): Promise<SessionResult> {
  const handled = await runSessionCommand(
    env,
    readTarget(env, session),
    (state) => decideSessionEnd({ sessionId: requireSessionId(state.sessionId, field), status }, state),
    SESSION_RETRIES,
  );
  return resultOf(env, handled.state.sessionId, handled.state, handled.appended.length > 0);
}

function requireSessionId(raw: string, field: string): string {
  if (!SESSION_ID_PATTERN.test(raw)) throw refuseInput(`Expected session_<id>, got '${raw}'`, field);
  return raw;
}
