import type { SessionLapsedData, SessionStartedData } from '../events/coordination/session.js';
import { SESSION_ID_PATTERN, SessionStatus, type ClientType, type EndStatus } from '../events/coordination/vocabulary.js';
import { compareWuIds } from '../events/work-units/terms.js';
import { livenessOf, mayAct } from '../projections/coordination/liveness.js';
import type { CoordinationState, SessionRecord } from '../projections/coordination/state.js';
import { ownValue } from '../projections/own-keys.js';
import { heldWorkUnits, type HeldWorkUnit } from '../projections/work-units/held.js';
import type { SessionFacts, WorkUnitsState } from '../projections/work-units/state.js';
import type { Decision, ExpectedVersion, ProposedEvent } from './decision.js';
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
  const decision = onStream(command.sessionId, 'session.heartbeat', { session_id: command.sessionId }, state.version, session);
  // The session is the one saying it is alive, whoever runs the command.
  return { ...decision, events: decision.events.map((e) => ({ ...e, actor: command.sessionId })) };
}

/** `session end`: ending once; the same status again appends nothing; another status is SESSION_ENDED. */
export function decideSessionEnd(command: { sessionId: string; status: EndStatus }, state: SessionCommandState): Decision<SessionRecord> | null {
  const session = knownSession(state.coordination, command.sessionId);
  if (session.stored_status === command.status) return null;
  if (session.stored_status !== SessionStatus.active) throw endedRefusal(session, `it cannot end again as ${command.status}`);
  return onStream(command.sessionId, 'session.ended', { session_id: command.sessionId, status: command.status }, state.version, session);
}

/** Was this lapse of the session (its current `last_seen`) recorded already: no sign of life since the one a lapse names. */
function lapseRecorded(facts: SessionFacts): boolean {
  return facts.lapse !== undefined && Date.parse(facts.lapse.last_seen) >= Date.parse(facts.last_heartbeat_at);
}

/**
 * The lapses to record: every session idle past its TTL (liveness.ts `stale`: started, not ended)
 * that holds work units (held.ts) and whose lapse is not recorded yet — a lapse is the session and
 * its `last_seen`, so it is recorded once, and a session that came back and lapsed again is a new
 * one. Each `session.lapsed` expects its session stream's version as the fold read it: a heartbeat
 * or another command's record of the same lapse landing first makes the append conflict, and the
 * command decide again. Null when there is nothing to record, or when `recordedBy` (the actor the
 * events would carry) is a session that may not record facts.
 */
export function decideLapses(state: WorkUnitsState, now: string, recordedBy?: string): Decision<SessionLapsedData[]> | null {
  // A command acting as an ended or unknown session records no lapse: noticing one is no reason to refuse the command.
  if (recordedBy !== undefined && SESSION_ID_PATTERN.test(recordedBy) && !mayAct(livenessOf(ownValue(state.sessions, recordedBy), now))) return null;
  let held: Map<string, HeldWorkUnit[]> | undefined;
  const lapses: SessionLapsedData[] = [];
  for (const [sessionId, facts] of Object.entries(state.sessions)) {
    if (livenessOf(facts, now).kind !== 'stale' || lapseRecorded(facts)) continue;
    held ??= heldWorkUnits(state);
    const wus = held.get(sessionId);
    if (wus === undefined || wus.length === 0) continue;
    lapses.push({
      session_id: sessionId,
      last_seen: facts.last_heartbeat_at,
      ttl_seconds: facts.ttl_seconds,
      lapsed_at: new Date(Date.parse(facts.last_heartbeat_at) + facts.ttl_seconds * 1000).toISOString(),
      held_wus: wus.map((w) => w.wu_id).sort(compareWuIds),
    });
  }
  if (lapses.length === 0) return null;
  const events: ProposedEvent[] = [];
  const expected: Record<string, ExpectedVersion> = {};
  for (const lapse of lapses) {
    const stream = `session/${lapse.session_id}`;
    events.push({ type: 'session.lapsed', stream, data: { ...lapse } });
    expected[stream] = ownValue(state.session_streams, lapse.session_id) ?? 'no_stream';
  }
  return { events, expected, outcome: lapses };
}

/**
 * A command's decision with the lapses it noticed recorded first, in the same batch, when it appends
 * anyway; a decision that appends nothing (or a refusal) records none.
 */
export function withLapses<R>(decision: Decision<R>, lapses: Decision<SessionLapsedData[]> | null): Decision<R>;
export function withLapses<R>(decision: Decision<R> | null, lapses: Decision<SessionLapsedData[]> | null): Decision<R> | null;
export function withLapses<R>(decision: Decision<R> | null, lapses: Decision<SessionLapsedData[]> | null): Decision<R> | null {
  if (decision === null || decision.events.length === 0 || lapses === null) return decision;
  return { ...decision, events: [...lapses.events, ...decision.events], expected: { ...lapses.expected, ...decision.expected } };
}
