import { INVALID } from '../../events/compiled.js';
import type { SignalSentData } from '../../events/coordination/signal.js';
import { DeliveryState, type DeliveryState as DeliveryStateT, type EndStatus, SessionStatus } from '../../events/coordination/vocabulary.js';
import type { BatonEvent, EventOf, RejectedEvent } from '../../events/baton-event.js';
import * as compiled from '../../events/validators.generated.js';
import { rejectionText } from '../rejection-text.js';

/**
 * The coordination fold: sessions (with display names settled at each seq), signals, receipts per
 * (signal, reader identity), and the few work-unit facts coordination reads. Pure; never throws on
 * history — odd events become integrity findings. Maps keep ids like `constructor` plain data.
 */
export interface SessionRecord {
  session_id: string;
  display_name: string;
  /** The name the start asked for, before the fold settled a race. */
  requested_name: string;
  agent_identity: string | null;
  role: string | null;
  wu_id: string | null;
  lane: string | null;
  goal: string | null;
  branch: string | null;
  worktree: string | null;
  client_type: string | null;
  stored_status: typeof SessionStatus.active | EndStatus;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  last_heartbeat_at: string;
  ttl_seconds: number;
  start_seq: number;
  /** The WU of the latest `wu.claimed` made by this session. */
  claimed_wu: string | null;
  /** Its latest `session.lapsed`, absent until one; current while no later heartbeat (sessions.ts `currentLapse`). */
  lapse?: LapseRecord;
}

/** A recorded lapse: when the session was last seen, when its lease lapsed, what it held; the event that said so. */
export interface LapseRecord {
  seq: number;
  at: string;
  last_seen: string;
  lapsed_at: string;
  ttl_seconds: number;
  held_wus: string[];
}

export interface SignalRecord {
  seq: number;
  at: string;
  actor: string;
  data: SignalSentData;
}

export interface IntegrityFinding {
  seq: number;
  type: string;
  reason: string;
}

export interface CoordinationState {
  head_seq: number;
  sessions: Map<string, SessionRecord>;
  /** Display name → session id, for every non-ended session. */
  names_held: Map<string, string>;
  signals: SignalRecord[];
  /** signal_id → index into `signals`. */
  signal_index: Map<string, number>;
  /** thread_id → indexes into `signals`, in seq order. */
  threads: Map<string, number[]>;
  /** signal_id → reader identity → folded state (§7.2). */
  receipts: Map<string, Map<string, DeliveryStateT>>;
  /** `${sender}\n${key}` → index of the first signal sent with that key. */
  idempotency: Map<string, number>;
  initiatives: Map<string, { lanes: string[] }>;
  wus: Map<string, { initiative: string | null; lane: string | null; claimant: string | null }>;
  /**
   * session id → events on `session/<id>` (whatever their type or fate): the stream's version as of
   * this fold, so a session command decides and appends on one read (no separate version lookup).
   */
  session_streams: Map<string, number>;
  findings: IntegrityFinding[];
}

export function initCoordination(): CoordinationState {
  return {
    head_seq: 0,
    sessions: new Map(),
    names_held: new Map(),
    signals: [],
    signal_index: new Map(),
    threads: new Map(),
    receipts: new Map(),
    idempotency: new Map(),
    initiatives: new Map(),
    wus: new Map(),
    session_streams: new Map(),
    findings: [],
  };
}

export function idempotencyScope(sender: string, key: string): string {
  return `${sender}\n${key}`;
}

/** The least `<name>-k`, k ≥ 2, nobody non-ended holds. */
function settleName(held: Map<string, string>, name: string): string {
  if (!held.has(name)) return name;
  for (let k = 2; ; k++) if (!held.has(`${name}-${k}`)) return `${name}-${k}`;
}

function laterOf(a: string, b: string): string {
  return Date.parse(b) > Date.parse(a) ? b : a;
}

/** Monotonic receipt fold: `delivered` only when nothing yet; a vote always wins (latest vote wins). */
export function foldReceiptState(current: DeliveryStateT | undefined, next: DeliveryStateT): DeliveryStateT {
  if (next === DeliveryState.delivered) return current ?? next;
  return next;
}

/**
 * Folds one event. Every event moves `head_seq`; an event the fold applies then keeps its actor's
 * session alive (§2 heartbeat rule), while a session start and a refused session or receipt event
 * do not.
 */
export function applyCoordination(state: CoordinationState, event: BatonEvent): CoordinationState {
  state.head_seq = event.seq;
  if (event.stream.startsWith('session/')) {
    const id = event.stream.slice('session/'.length);
    state.session_streams.set(id, (state.session_streams.get(id) ?? 0) + 1);
  }
  if (applyFact(state, event)) keepActorAlive(state, event);
  return state;
}

/** The event's own change, by type; whether it counts as a fact its actor recorded (see applyCoordination). */
function applyFact(state: CoordinationState, event: BatonEvent): boolean {
  if (event.rejected !== undefined) return applyRejected(state, event);
  switch (event.type) {
    case 'session.started':
      applySessionStarted(state, event);
      return false;
    case 'session.heartbeat':
      return applyHeartbeat(state, event);
    case 'session.ended':
      return applySessionEnded(state, event);
    case 'session.lapsed':
      return applySessionLapsed(state, event);
    case 'signal.sent':
      applySignal(state, event);
      return true;
    case 'receipt.recorded':
      return applyReceipt(state, event);
    case 'initiative.created':
      if (!state.initiatives.has(event.data.initiative)) state.initiatives.set(event.data.initiative, { lanes: event.data.lanes });
      return true;
    case 'wu.defined':
      applyWuDefined(state, event);
      return true;
    case 'wu.claimed':
      applyWuClaimed(state, event);
      return true;
    default:
      return true;
  }
}

/**
 * An event the catalog refused: a finding for the types coordination folds (a refused signal may
 * still be kept, see signalData); false where it must not keep its actor alive.
 */
function applyRejected(state: CoordinationState, event: RejectedEvent): boolean {
  switch (event.type) {
    case 'session.started':
      addFinding(state, event, rejectionText(event));
      return false;
    case 'session.heartbeat':
      addFinding(state, event, 'heartbeat of an unknown session');
      return false;
    case 'session.ended':
      addFinding(state, event, 'end of an unknown session');
      return false;
    case 'session.lapsed':
      addFinding(state, event, rejectionText(event));
      return false;
    case 'receipt.recorded':
      addFinding(state, event, rejectionText(event));
      return false;
    case 'signal.sent': {
      const data = refusedSignalData(state, event);
      if (data !== undefined) recordSignal(state, event, data);
      return true;
    }
    default:
      return true;
  }
}

/** Any fact a live session records keeps it alive (§2 heartbeat rule). */
function keepActorAlive(state: CoordinationState, event: BatonEvent): void {
  const actor = state.sessions.get(event.actor);
  if (actor && actor.stored_status === SessionStatus.active) actor.last_heartbeat_at = laterOf(actor.last_heartbeat_at, event.at);
}

/** An odd event becomes an integrity finding, in fold order. */
function addFinding(state: CoordinationState, event: BatonEvent, reason: string): void {
  state.findings.push({ seq: event.seq, type: event.type, reason });
}

/** `session.started`: a new session under its settled display name; a second start is a finding. */
function applySessionStarted(state: CoordinationState, event: EventOf<'session.started'>): void {
  const d = event.data;
  if (state.sessions.has(d.session_id)) return addFinding(state, event, `session ${d.session_id} started twice`);
  const name = settleName(state.names_held, d.display_name);
  state.names_held.set(name, d.session_id);
  state.sessions.set(d.session_id, {
    session_id: d.session_id,
    display_name: name,
    requested_name: d.display_name,
    agent_identity: d.agent_identity ?? null,
    role: d.role ?? null,
    wu_id: d.wu_id ?? null,
    lane: d.lane ?? null,
    goal: d.goal ?? null,
    branch: d.branch ?? null,
    worktree: d.worktree ?? null,
    client_type: d.client_type ?? null,
    stored_status: SessionStatus.active,
    created_at: event.at,
    updated_at: event.at,
    finished_at: null,
    last_heartbeat_at: event.at,
    ttl_seconds: d.ttl_seconds,
    start_seq: event.seq,
    claimed_wu: null,
  });
}

/** `session.heartbeat` of an active session; false (a finding) for an unknown or ended one. */
function applyHeartbeat(state: CoordinationState, event: EventOf<'session.heartbeat'>): boolean {
  const session = state.sessions.get(event.data.session_id);
  if (!session) return (addFinding(state, event, 'heartbeat of an unknown session'), false);
  if (session.stored_status !== SessionStatus.active) return (addFinding(state, event, `heartbeat of ended session ${session.session_id}`), false);
  session.last_heartbeat_at = laterOf(session.last_heartbeat_at, event.at);
  session.updated_at = laterOf(session.updated_at, event.at);
  return true;
}

/**
 * `session.ended`: the session ends and frees its display name; false for an unknown session (a
 * finding) or one already ended (a finding only when the status differs).
 */
function applySessionEnded(state: CoordinationState, event: EventOf<'session.ended'>): boolean {
  const session = state.sessions.get(event.data.session_id);
  if (!session) return (addFinding(state, event, 'end of an unknown session'), false);
  if (session.stored_status !== SessionStatus.active) {
    if (session.stored_status !== event.data.status) addFinding(state, event, `session ${session.session_id} already ended ${session.stored_status}`);
    return false;
  }
  session.stored_status = event.data.status;
  session.finished_at = event.at;
  session.updated_at = event.at;
  if (state.names_held.get(session.display_name) === session.session_id) state.names_held.delete(session.display_name);
  return true;
}

/**
 * `session.lapsed`: the session's latest lapse, with the WUs it held; a lapse of an unknown session
 * is a finding. Its actor is the command that noticed (kept alive as any actor), not the session.
 */
function applySessionLapsed(state: CoordinationState, event: EventOf<'session.lapsed'>): boolean {
  const d = event.data;
  const session = state.sessions.get(d.session_id);
  if (!session) return (addFinding(state, event, 'lapse of an unknown session'), false);
  session.lapse = { seq: event.seq, at: event.at, last_seen: d.last_seen, lapsed_at: d.lapsed_at, ttl_seconds: d.ttl_seconds, held_wus: d.held_wus };
  return true;
}

/** `receipt.recorded`: the reader's folded delivery state; false (a finding) for an unknown signal or its own sender. */
function applyReceipt(state: CoordinationState, event: EventOf<'receipt.recorded'>): boolean {
  const d = event.data;
  const index = state.signal_index.get(d.signal_id);
  if (index === undefined) return (addFinding(state, event, `receipt for unknown signal ${d.signal_id}`), false);
  if (state.signals[index]!.data.sender_identity === d.reader_identity) return (addFinding(state, event, `receipt by the sender of ${d.signal_id}`), false);
  let readers = state.receipts.get(d.signal_id);
  if (!readers) state.receipts.set(d.signal_id, (readers = new Map()));
  readers.set(d.reader_identity, foldReceiptState(readers.get(d.reader_identity), d.delivery_state));
  return true;
}

/** `wu.defined`: the WU's initiative and lane, as coordination reads them. */
function applyWuDefined(state: CoordinationState, event: EventOf<'wu.defined'>): void {
  const d = event.data;
  const wu = state.wus.get(d.wu_id) ?? { initiative: null, lane: null, claimant: null };
  if (d.initiative !== undefined) wu.initiative = d.initiative;
  if (d.lane !== undefined) wu.lane = d.lane;
  state.wus.set(d.wu_id, wu);
}

/** `wu.claimed`: the WU's claimant, and the claiming session's latest WU. */
function applyWuClaimed(state: CoordinationState, event: EventOf<'wu.claimed'>): void {
  const d = event.data;
  const wu = state.wus.get(d.wu_id) ?? { initiative: null, lane: null, claimant: null };
  wu.claimant = d.session_id;
  state.wus.set(d.wu_id, wu);
  const claimant = d.session_id === null ? undefined : state.sessions.get(d.session_id);
  if (claimant) claimant.claimed_wu = d.wu_id;
}

/**
 * `signal.sent` the catalog accepted: today's shape (it carries `schema_version`), or a legacy
 * record the upcaster could not complete, which is checked against today's shape like a refused one.
 */
function applySignal(state: CoordinationState, event: EventOf<'signal.sent'>): void {
  const data = 'schema_version' in event.data ? event.data : refusedSignalData(state, event);
  if (data !== undefined) recordSignal(state, event, data);
}

/**
 * The data of a signal that is not today's shape, or undefined when it is invalid (reported). A
 * signal whose only fault is its deprecated alias (`target_agent` absent from, or not equal to,
 * recipients[0]) keeps its `recipients` and is reported (§5.4). Decided with the compiled checks
 * alone, so the fold never needs zod and never throws on history.
 */
function refusedSignalData(state: CoordinationState, event: BatonEvent): SignalSentData | undefined {
  const raw: Record<string, unknown> = event.data;
  const parsed = compiled.SignalSentData.parse(raw);
  if (parsed !== INVALID) return parsed;
  if ('target_agent' in raw) {
    const { target_agent: alias, ...withoutAlias } = raw;
    const kept = compiled.SignalSentData.parse(withoutAlias);
    if (kept !== INVALID) {
      addFinding(state, event, `signal ${kept.signal_id}: target_agent ${String(alias)} differs from recipients[0]; recipients kept`);
      return { ...kept, target_agent: alias } as SignalSentData;
    }
  }
  addFinding(state, event, event.rejected !== undefined ? rejectionText(event) : 'invalid signal.sent data: not an A2A.V1 signal after upcasting');
  return undefined;
}

/** A signal, indexed by id, thread and idempotency scope; a second record of an id is a finding. */
function recordSignal(state: CoordinationState, event: BatonEvent, data: SignalSentData): void {
  if (state.signal_index.has(data.signal_id)) return addFinding(state, event, `signal ${data.signal_id} recorded twice`);
  if (event.stream !== `thread/${data.thread_id}`) addFinding(state, event, `signal ${data.signal_id} is on ${event.stream}, not thread/${data.thread_id}`);
  const index = state.signals.length;
  state.signals.push({ seq: event.seq, at: event.at, actor: event.actor, data });
  state.signal_index.set(data.signal_id, index);
  const thread = state.threads.get(data.thread_id);
  if (thread) thread.push(index);
  else state.threads.set(data.thread_id, [index]);
  if (data.idempotency_key !== undefined) {
    const scope = idempotencyScope(data.sender_identity, data.idempotency_key);
    if (!state.idempotency.has(scope)) state.idempotency.set(scope, index);
  }
}

// ---- snapshots: Maps as entry lists, in insertion order, so a round trip folds identically ----

interface CoordinationJson {
  head_seq: number;
  sessions: [string, SessionRecord][];
  names_held: [string, string][];
  signals: SignalRecord[];
  receipts: [string, [string, DeliveryStateT][]][];
  initiatives: [string, { lanes: string[] }][];
  wus: [string, { initiative: string | null; lane: string | null; claimant: string | null }][];
  session_streams: [string, number][];
  findings: IntegrityFinding[];
}

export function serializeCoordination(state: CoordinationState): CoordinationJson {
  return {
    head_seq: state.head_seq,
    sessions: [...state.sessions],
    names_held: [...state.names_held],
    signals: state.signals,
    receipts: [...state.receipts].map(([id, readers]) => [id, [...readers]]),
    initiatives: [...state.initiatives],
    wus: [...state.wus],
    session_streams: [...state.session_streams],
    findings: state.findings,
  };
}

export function deserializeCoordination(json: unknown): CoordinationState {
  if (typeof json !== 'object' || json === null) throw new Error('coordination state must be an object');
  const j = json as CoordinationJson;
  for (const key of ['sessions', 'names_held', 'signals', 'receipts', 'initiatives', 'wus', 'session_streams', 'findings'] as const) {
    if (!Array.isArray(j[key])) throw new Error(`coordination state: ${key} must be a list`);
  }
  if (typeof j.head_seq !== 'number') throw new Error('coordination state: head_seq must be a number');
  const state = initCoordination();
  state.head_seq = j.head_seq;
  state.sessions = new Map(j.sessions);
  state.names_held = new Map(j.names_held);
  state.signals = j.signals;
  state.signals.forEach((s, i) => {
    state.signal_index.set(s.data.signal_id, i);
    const thread = state.threads.get(s.data.thread_id);
    if (thread) thread.push(i);
    else state.threads.set(s.data.thread_id, [i]);
    if (s.data.idempotency_key !== undefined) {
      const scope = idempotencyScope(s.data.sender_identity, s.data.idempotency_key);
      if (!state.idempotency.has(scope)) state.idempotency.set(scope, i);
    }
  });
  state.receipts = new Map(j.receipts.map(([id, readers]) => [id, new Map(readers)]));
  state.initiatives = new Map(j.initiatives);
  state.wus = new Map(j.wus);
  state.session_streams = new Map(j.session_streams);
  state.findings = j.findings;
  return state;
}
