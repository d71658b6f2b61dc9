import type { SessionStartedData } from '../events/coordination/session.js';
import { SessionStatus, type ClientType, type EndStatus } from '../events/coordination/vocabulary.js';
import type { CoordinationState, SessionRecord } from '../projections/coordination/state.js';
import type { Decision } from './decision.js';
import { ErrorCode } from './error-codes.js';
import { Refusal, refuseField } from './refusal.js';

/**
 * `session start | heartbeat | end` (coordination.md §2, §3) as deciders over the coordination
 * fold. A start reserves the first free name of the pool on a new stream; a heartbeat or an end
 * decides on the session's record at the version of its stream read before the fold, so a racing
 * writer makes the append conflict and the handler decide again.
 */
export const SessionErrorCode = { SESSION_ENDED: 'SESSION_ENDED' } as const;

export interface SessionCommandState {
  coordination: CoordinationState;
  /** The version of `session/<id>`, read before the fold. */
  version: number;
}

export interface StartSession {
  /** Drawn by the shell (or chosen by a client integration). */
  sessionId: string;
  displayNamePool: readonly string[];
  ttlSeconds: number;
  agentIdentity?: string | undefined;
  role?: string | undefined;
  wuId?: string | undefined;
  lane?: string | undefined;
  goal?: string | undefined;
  branch?: string | undefined;
  worktree?: string | undefined;
  clientType?: ClientType | undefined;
}

/** The first pool name no non-ended session holds; then `<name>-2` in pool order, then `-3`, … */
export function chooseDisplayName(state: CoordinationState, pool: readonly string[]): string {
  for (const name of pool) if (!state.names_held.has(name)) return name;
  for (let k = 2; ; k++) for (const name of pool) if (!state.names_held.has(`${name}-${k}`)) return `${name}-${k}`;
}

/** `session start`: a known WU lends its lane when none is given; the stream must be new. */
export function decideSessionStart(command: StartSession, state: CoordinationState): Decision<{ session_id: string }> {
  let lane = command.lane;
  if (command.wuId !== undefined) {
    const wu = state.wus.get(command.wuId);
    if (!wu) throw refuseField(ErrorCode.UNKNOWN_ID, 'wu', (name) => `${name}: WU ${command.wuId} not found`, { field: 'wu', wu_id: command.wuId });
    lane ??= wu.lane ?? undefined;
  }
  const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> =>
    value === undefined ? {} : ({ [key]: value } as Record<K, V>);
  const data: SessionStartedData = {
    session_id: command.sessionId,
    display_name: chooseDisplayName(state, command.displayNamePool),
    ...optional('agent_identity', command.agentIdentity),
    ...optional('role', command.role),
    ...optional('wu_id', command.wuId),
    ...optional('lane', lane),
    ...optional('goal', command.goal),
    ...optional('branch', command.branch),
    ...optional('worktree', command.worktree),
    ...optional('client_type', command.clientType),
    ttl_seconds: command.ttlSeconds,
  };
  const stream = `session/${command.sessionId}`;
  return { events: [{ type: 'session.started', stream, data }], expected: { [stream]: 'no_stream' }, outcome: { session_id: command.sessionId } };
}

/** The session's record; UNKNOWN_ID when the fold has none. */
export function knownSession(state: CoordinationState, sessionId: string): SessionRecord {
  const session = state.sessions.get(sessionId);
  if (!session) throw new Refusal(ErrorCode.UNKNOWN_ID, `Session ${sessionId} not found`, { session_id: sessionId });
  return session;
}

function endedRefusal(session: SessionRecord, what: string): Refusal {
  return new Refusal(SessionErrorCode.SESSION_ENDED, `Session ${session.session_id} already ended (${session.stored_status}); ${what}`, {
    session_id: session.session_id,
    status: session.stored_status,
  });
}

function onStream(sessionId: string, type: string, data: Record<string, unknown>, version: number, session: SessionRecord): Decision<SessionRecord> {
  const stream = `session/${sessionId}`;
  return { events: [{ type, stream, data }], expected: { [stream]: version }, outcome: session };
}

/** `session heartbeat`: an ended session cannot say it is alive (SESSION_ENDED). */
export function decideHeartbeat(command: { sessionId: string }, state: SessionCommandState): Decision<SessionRecord> {
  const session = knownSession(state.coordination, command.sessionId);
  if (session.stored_status !== SessionStatus.active) throw endedRefusal(session, 'it cannot heartbeat');
  return onStream(command.sessionId, 'session.heartbeat', { session_id: command.sessionId }, state.version, session);
}

/** `session end`: ending once; the same status again appends nothing; another status is SESSION_ENDED. */
export function decideSessionEnd(command: { sessionId: string; status: EndStatus }, state: SessionCommandState): Decision<SessionRecord> | null {
  const session = knownSession(state.coordination, command.sessionId);
  if (session.stored_status === command.status) return null;
  if (session.stored_status !== SessionStatus.active) throw endedRefusal(session, `it cannot end again as ${command.status}`);
  return onStream(command.sessionId, 'session.ended', { session_id: command.sessionId, status: command.status }, state.version, session);
}
