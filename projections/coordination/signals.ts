import { Intent, InterruptClass, SYSTEM_IDENTITY, type DeliveryState } from '../../events/coordination/vocabulary.js';
import type { A2ASignalV1 } from '../../events/coordination/signal.js';
import { toA2ASignalV1 } from '../../events/coordination/signal-records.js';
import { coordinationProjection } from './roster.js';
import { displayNameFor, resolveToken } from './sessions.js';
import type { CoordinationState, IntegrityFinding, SignalRecord } from './state.js';

/** Signal queries over the fold: visibility (§7.1), receipt state (§7.2), the inbox (§7.3). */

/** The hosted profile's tenant filter: only signals of this workspace id count (§11). */
export type WorkspaceFilter = string | undefined;

export function inWorkspace(record: SignalRecord, workspace: WorkspaceFilter): boolean {
  return workspace === undefined || record.data.workspace_id === workspace;
}

export function isVisibleTo(record: SignalRecord, reader: string, workspace: WorkspaceFilter): boolean {
  const s = record.data;
  if (s.sender_identity === reader || !inWorkspace(record, workspace)) return false;
  return s.recipients.length === 0 || s.recipients.includes(reader);
}

export function isDirectedTo(record: SignalRecord, reader: string): boolean {
  return record.data.sender_identity !== reader && record.data.recipients.includes(reader);
}

export function receiptState(state: CoordinationState, signalId: string, reader: string): DeliveryState | null {
  return state.receipts.get(signalId)?.get(reader) ?? null;
}

export interface InboxQuery {
  /** null: observer mode — every signal, never marked. */
  reader: string | null;
  thread?: string | undefined;
  intents?: readonly string[] | undefined;
  wu?: string | undefined;
  all?: boolean | undefined;
  workspace?: WorkspaceFilter;
}

export type InboxItem = A2ASignalV1 & {
  seq: number;
  read: boolean;
  delivery_state: DeliveryState | null;
  sender_display_name: string | null;
};

export function inboxRecords(state: CoordinationState, query: InboxQuery): SignalRecord[] {
  return state.signals.filter((record) => {
    const s = record.data;
    if (query.reader === null ? !inWorkspace(record, query.workspace) : !isVisibleTo(record, query.reader, query.workspace)) return false;
    if (query.thread !== undefined && s.thread_id !== query.thread) return false;
    if (query.intents !== undefined && query.intents.length > 0 && !query.intents.includes(s.intent)) return false;
    if (query.wu !== undefined && s.wu_id !== query.wu) return false;
    if (!query.all && query.reader !== null && receiptState(state, s.signal_id, query.reader) !== null) return false;
    return true;
  });
}

export function inboxItem(state: CoordinationState, now: string, record: SignalRecord, reader: string | null): InboxItem {
  const delivery = reader === null ? null : receiptState(state, record.data.signal_id, reader);
  return {
    ...toA2ASignalV1(record.data),
    seq: record.seq,
    read: delivery !== null,
    delivery_state: delivery,
    sender_display_name: displayNameFor(state, now, record.data.sender_identity),
  };
}

export interface InboxView {
  v: 1;
  type: 'inbox';
  generated_at: string;
  reader_identity: string | null;
  session_id: string | null;
  marked: number;
  signals: InboxItem[];
  /** Facts the coordination fold could not apply: a signal here may be missing because of one. */
  integrity_findings: IntegrityFinding[];
}

export function inboxView(state: CoordinationState, now: string, query: InboxQuery, extra: { session_id?: string | null; marked?: number } = {}): InboxView {
  return {
    v: 1,
    type: 'inbox',
    generated_at: now,
    reader_identity: query.reader,
    session_id: extra.session_id ?? null,
    marked: extra.marked ?? 0,
    signals: inboxRecords(state, query).map((r) => inboxItem(state, now, r, query.reader)),
    integrity_findings: state.findings.map((f) => ({ ...f })),
  };
}

/**
 * Hook-queue eligibility (§5.3, §9.1): directed (never broadcast), class interrupt or priority,
 * still unread by the reader; `interrupt` first, then seq.
 */
export function pendingHookRecords(
  state: CoordinationState,
  reader: string,
  workspace: WorkspaceFilter,
  queued: ReadonlySet<string> = new Set(),
): SignalRecord[] {
  const out = state.signals.filter((record) => {
    if (!inWorkspace(record, workspace) || !isDirectedTo(record, reader)) return false;
    if (receiptState(state, record.data.signal_id, reader) !== null) return false;
    return queued.has(record.data.signal_id) || record.data.interrupt_class !== InterruptClass.advisory;
  });
  const rank = (r: SignalRecord): number => (r.data.interrupt_class === InterruptClass.interrupt ? 0 : 1);
  return out.sort((a, b) => rank(a) - rank(b) || a.seq - b.seq);
}

/** A signal is answered by a vote; an `INFO`/`PROPOSE`/`COUNTER` is not (§7.4). */
export function isVote(intent: string): boolean {
  return intent === Intent.AGREE || intent === Intent.REJECT;
}

export { SYSTEM_IDENTITY };

export const inboxProjection = coordinationProjection('inbox', (state, now, args) => {
  // `--for` resolves like the command's (§6.2) as of this position; an unresolvable token is taken literally.
  const token = typeof args['for'] === 'string' ? args['for'] : null;
  const resolved = token === null ? null : resolveToken(state, now, token);
  const reader = token === null ? null : resolved?.ok ? resolved.identity : token;
  return inboxView(state, now, {
    reader,
    thread: typeof args['thread'] === 'string' ? args['thread'] : undefined,
    intents: typeof args['intent'] === 'string' ? args['intent'].split(',') : undefined,
    wu: typeof args['wu'] === 'string' ? args['wu'] : undefined,
    all: args['all'] === true || reader === null,
    workspace: typeof args['workspace_id'] === 'string' ? args['workspace_id'] : undefined,
  });
});
