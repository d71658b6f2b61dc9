import { INVALID, safeParse } from '../../events/compiled.js';
import type { SignalSentData } from '../../events/coordination/signal.js';
import { DeliveryState, type DeliveryState as DeliveryStateT, type EndStatus, SessionStatus } from '../../events/coordination/vocabulary.js';
import type { DecodedEvent } from '../../events/envelope.js';
import * as compiled from '../../events/validators.generated.js';

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

export function applyCoordination(state: CoordinationState, event: DecodedEvent): CoordinationState {
  state.head_seq = event.seq;
  const finding = (reason: string): void => {
    state.findings.push({ seq: event.seq, type: event.type, reason });
  };
  switch (event.type) {
    case 'session.started': {
      const parsed = safeParse(compiled.SessionStartedData, event.data);
      if (!parsed.success) return (finding('invalid session.started data'), state);
      const d = parsed.data;
      if (state.sessions.has(d.session_id)) return (finding(`session ${d.session_id} started twice`), state);
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
      return state;
    }
    case 'session.heartbeat': {
      const parsed = safeParse(compiled.SessionHeartbeatData, event.data);
      const session = parsed.success ? state.sessions.get(parsed.data.session_id) : undefined;
      if (!session) return (finding('heartbeat of an unknown session'), state);
      if (session.stored_status !== SessionStatus.active) return (finding(`heartbeat of ended session ${session.session_id}`), state);
      session.last_heartbeat_at = laterOf(session.last_heartbeat_at, event.at);
      session.updated_at = laterOf(session.updated_at, event.at);
      break;
    }
    case 'session.ended': {
      const parsed = safeParse(compiled.SessionEndedData, event.data);
      const session = parsed.success ? state.sessions.get(parsed.data.session_id) : undefined;
      if (!parsed.success || !session) return (finding('end of an unknown session'), state);
      if (session.stored_status !== SessionStatus.active) {
        if (session.stored_status !== parsed.data.status) finding(`session ${session.session_id} already ended ${session.stored_status}`);
        return state;
      }
      session.stored_status = parsed.data.status;
      session.finished_at = event.at;
      session.updated_at = event.at;
      if (state.names_held.get(session.display_name) === session.session_id) state.names_held.delete(session.display_name);
      break;
    }
    case 'signal.sent':
      applySignal(state, event, finding);
      break;
    case 'receipt.recorded': {
      const parsed = safeParse(compiled.ReceiptRecordedData, event.data);
      if (!parsed.success) return (finding('invalid receipt.recorded data'), state);
      const d = parsed.data;
      const index = state.signal_index.get(d.signal_id);
      if (index === undefined) return (finding(`receipt for unknown signal ${d.signal_id}`), state);
      if (state.signals[index]!.data.sender_identity === d.reader_identity) return (finding(`receipt by the sender of ${d.signal_id}`), state);
      let readers = state.receipts.get(d.signal_id);
      if (!readers) state.receipts.set(d.signal_id, (readers = new Map()));
      readers.set(d.reader_identity, foldReceiptState(readers.get(d.reader_identity), d.delivery_state));
      break;
    }
    case 'initiative.created': {
      const parsed = safeParse(compiled.InitiativeCreatedData, event.data);
      if (parsed.success && !state.initiatives.has(parsed.data.initiative)) state.initiatives.set(parsed.data.initiative, { lanes: parsed.data.lanes });
      break;
    }
    case 'wu.defined': {
      const parsed = safeParse(compiled.WuDefinedData, event.data);
      if (!parsed.success) break;
      const wu = state.wus.get(parsed.data.wu_id) ?? { initiative: null, lane: null, claimant: null };
      if (parsed.data.initiative !== undefined) wu.initiative = parsed.data.initiative;
      if (parsed.data.lane !== undefined) wu.lane = parsed.data.lane;
      state.wus.set(parsed.data.wu_id, wu);
      break;
    }
    case 'wu.claimed': {
      const parsed = safeParse(compiled.WuClaimedData, event.data);
      if (!parsed.success) break;
      const wu = state.wus.get(parsed.data.wu_id) ?? { initiative: null, lane: null, claimant: null };
      wu.claimant = parsed.data.session_id;
      state.wus.set(parsed.data.wu_id, wu);
      const claimant = parsed.data.session_id === null ? undefined : state.sessions.get(parsed.data.session_id);
      if (claimant) claimant.claimed_wu = parsed.data.wu_id;
      break;
    }
    default:
      break;
  }
  // Any fact a live session records keeps it alive (§2 heartbeat rule).
  const actor = state.sessions.get(event.actor);
  if (actor && actor.stored_status === SessionStatus.active) actor.last_heartbeat_at = laterOf(actor.last_heartbeat_at, event.at);
  return state;
}

/**
 * A stored signal's data, or undefined when it is invalid (reported). A signal whose only fault is
 * its deprecated alias (`target_agent` absent from, or not equal to, recipients[0]) keeps its
 * `recipients` and is reported (§5.4). The fold decides with the compiled checks alone, so it never
 * needs zod and never throws on history.
 */
function signalData(raw: Record<string, unknown>, finding: (reason: string) => void): SignalSentData | undefined {
  const parsed = compiled.SignalSentData.parse(raw);
  if (parsed !== INVALID) return parsed;
  if ('target_agent' in raw) {
    const { target_agent: alias, ...withoutAlias } = raw;
    const kept = compiled.SignalSentData.parse(withoutAlias);
    if (kept !== INVALID) {
      finding(`signal ${kept.signal_id}: target_agent ${String(alias)} differs from recipients[0]; recipients kept`);
      return { ...kept, target_agent: alias } as SignalSentData;
    }
  }
  finding(`invalid signal.sent data (${describeInvalidSignal(raw)})`);
  return undefined;
}

/** Which of a signal's identifying fields are present, so a finding can be traced without zod. */
function describeInvalidSignal(raw: Record<string, unknown>): string {
  const id = typeof raw['signal_id'] === 'string' ? `signal_id ${raw['signal_id']}` : 'no signal_id';
  return `${id}; it fails the signal.sent schema, see baton log verify`;
}

function applySignal(state: CoordinationState, event: DecodedEvent, finding: (reason: string) => void): void {
  const data = signalData(event.data, finding);
  if (data === undefined) return;
  if (state.signal_index.has(data.signal_id)) return finding(`signal ${data.signal_id} recorded twice`);
  if (event.stream !== `thread/${data.thread_id}`) finding(`signal ${data.signal_id} is on ${event.stream}, not thread/${data.thread_id}`);
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
    findings: state.findings,
  };
}

export function deserializeCoordination(json: unknown): CoordinationState {
  if (typeof json !== 'object' || json === null) throw new Error('coordination state must be an object');
  const j = json as CoordinationJson;
  for (const key of ['sessions', 'names_held', 'signals', 'receipts', 'initiatives', 'wus', 'findings'] as const) {
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
  state.findings = j.findings;
  return state;
}
