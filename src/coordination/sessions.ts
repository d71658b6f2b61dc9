import { SessionStatus, type ClientType, type EndStatus } from '../../events/coordination/identities.js';
import type { SessionStartedData } from '../../events/coordination/session.js';
import { effectiveStatus } from '../../projections/coordination/sessions.js';
import type { CoordinationState, SessionRecord } from '../../projections/coordination/state.js';
import { BatonError, ErrorCode } from '../errors.js';
import { handleCommand } from '../store/handle-command.js';
import { CoordinationErrorCode } from './errors.js';
import { actorOf, loadState, type CoordinationEnv } from './env.js';
import { newSessionId } from './ids.js';

/** `session start | heartbeat | end` (coordination.md §2, §3): decide on the fold, append, fold again. */
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

/** The first pool name no non-ended session holds; then `<name>-2` in pool order, then `-3`, … */
export function chooseDisplayName(state: CoordinationState, pool: readonly string[]): string {
  for (const name of pool) if (!state.names_held.has(name)) return name;
  for (let k = 2; ; k++) for (const name of pool) if (!state.names_held.has(`${name}-${k}`)) return `${name}-${k}`;
}

export function sessionNotFound(id: string): BatonError {
  return new BatonError(ErrorCode.UNKNOWN_ID, `Session ${id} not found`, { session_id: id });
}

export async function startSession(env: CoordinationEnv, input: StartSessionInput): Promise<SessionResult> {
  const { state } = await loadState(env);
  let lane = input.lane;
  if (input.wu_id !== undefined) {
    const wu = state.wus.get(input.wu_id);
    if (!wu) throw new BatonError(ErrorCode.UNKNOWN_ID, `--wu: WU ${input.wu_id} not found`, { field: '--wu', wu_id: input.wu_id });
    lane ??= wu.lane ?? undefined;
  }
  const agentIdentity = input.agent_identity ?? env.envIdentity;
  const sessionId = input.session_id ?? newSessionId();
  const data: SessionStartedData = {
    session_id: sessionId,
    display_name: chooseDisplayName(state, env.settings.displayNamePool),
    ...(agentIdentity !== undefined ? { agent_identity: agentIdentity } : {}),
    ...(input.role !== undefined ? { role: input.role } : {}),
    ...(input.wu_id !== undefined ? { wu_id: input.wu_id } : {}),
    ...(lane !== undefined ? { lane } : {}),
    ...(input.goal !== undefined ? { goal: input.goal } : {}),
    ...(input.branch !== undefined ? { branch: input.branch } : {}),
    ...(input.worktree !== undefined ? { worktree: input.worktree } : {}),
    ...(input.client_type !== undefined ? { client_type: input.client_type } : {}),
    ttl_seconds: env.settings.sessionTtlSeconds,
  };
  await env.store.append([{ type: 'session.started', stream: `session/${sessionId}`, data, actor: actorOf(env), at: env.now }], {
    expectedVersion: 'no_stream',
  });
  // Another start may have raced us to the same name: the fold settles it; print what it says.
  const after = await loadState(env);
  const session = after.state.sessions.get(sessionId)!;
  return { session, status: SessionStatus.active, appended: true };
}

/**
 * Heartbeats of many writers race on one session stream: a lost race is read and decided again
 * more often than other commands before it is CONFLICT.
 */
const SESSION_RETRIES = 20;

/** Read the stream version, decide on the fold, append with that version; retry when another writer won. */
async function decideAndAppend(
  env: CoordinationEnv,
  sessionId: string,
  decide: (session: SessionRecord) => { type: string; data: Record<string, unknown> } | null,
): Promise<SessionResult> {
  const stream = `session/${sessionId}`;
  const handled = await handleCommand(
    {
      store: env.store,
      catalog: env.catalog,
      actor: actorOf(env),
      now: env.now,
      read: async () => {
        const version = await env.store.streamVersion(stream);
        const session = (await loadState(env)).state.sessions.get(sessionId);
        if (!session) throw sessionNotFound(sessionId);
        return { version, session };
      },
    },
    ({ version, session }) => {
      const event = decide(session);
      return { events: event === null ? [] : [{ ...event, stream }], expected: { [stream]: version }, outcome: session };
    },
    SESSION_RETRIES,
  );
  if (handled.appended.length === 0) return { session: handled.state.session, status: effectiveStatus(handled.state.session, env.now), appended: false };
  const updated = (await loadState(env)).state.sessions.get(sessionId)!;
  return { session: updated, status: effectiveStatus(updated, env.now), appended: true };
}

function endedError(session: SessionRecord, what: string): BatonError {
  return new BatonError(CoordinationErrorCode.SESSION_ENDED, `Session ${session.session_id} already ended (${session.stored_status}); ${what}`, {
    session_id: session.session_id,
    status: session.stored_status,
  });
}

export function heartbeatSession(env: CoordinationEnv, sessionId: string): Promise<SessionResult> {
  return decideAndAppend(env, sessionId, (session) => {
    if (session.stored_status !== SessionStatus.active) throw endedError(session, 'it cannot heartbeat');
    return { type: 'session.heartbeat', data: { session_id: sessionId } };
  });
}

/** Ending once; the same status again appends nothing; another status is SESSION_ENDED. */
export function endSession(env: CoordinationEnv, sessionId: string, status: EndStatus): Promise<SessionResult> {
  return decideAndAppend(env, sessionId, (session) => {
    if (session.stored_status === status) return null;
    if (session.stored_status !== SessionStatus.active) throw endedError(session, `it cannot end again as ${status}`);
    return { type: 'session.ended', data: { session_id: sessionId, status } };
  });
}
