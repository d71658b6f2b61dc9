import type { BatonEvent } from '../../events/baton-event.js';
import { FlowEventType } from '../../events/flow/flow-events.js';
import type { Projection } from '../projection.js';
import { rejectionText } from '../rejection-text.js';
import type { EventEvidence } from './types.js';

/**
 * `audit_log`: what the audit reads of the log beside the domain folds. The events the catalog
 * refused (each with why), the store's own recoveries and repairs (`log.recovered`,
 * `log.repaired`), and for each flow stream the event that put it in its current phase (the
 * flow fold keeps times, not seqs). Plain JSON, so its snapshot needs no codec; cheap per event.
 */
export interface AuditLogState {
  head_seq: number;
  /** Events the catalog refused: schema-invalid data, or a type it does not know. */
  rejected: (EventEvidence & { unknown_type: boolean })[];
  recoveries: (EventEvidence & { quarantined_to: string | null })[];
  /** flow stream → the latest `flow.started` or `flow.phase_changed` on it. */
  phase_marks: Record<string, EventEvidence>;
  /** session id → its `session.started`, and its latest `session.ended` and `session.lapsed` (evidence with the actor that recorded them). */
  sessions: Record<string, { started: EventEvidence | null; ended: EventEvidence | null; lapsed: EventEvidence | null }>;
}

export function initAuditLog(): AuditLogState {
  return { head_seq: 0, rejected: [], recoveries: [], phase_marks: {}, sessions: {} };
}

function evidenceOf(event: BatonEvent, summary: string): EventEvidence {
  return { seq: event.seq, at: event.at, type: event.type, stream: event.stream, actor: event.actor, summary };
}

export function applyAuditLog(state: AuditLogState, event: BatonEvent): AuditLogState {
  state.head_seq = event.seq;
  if (event.rejected !== undefined) {
    state.rejected.push({ ...evidenceOf(event, rejectionText(event)), unknown_type: event.rejected.reason === 'unknown_type' });
    return state;
  }
  switch (event.type) {
    case 'log.recovered': {
      const d = event.data;
      const summary = `${d.reason}: ${d.bytes} bytes at ${d.segment}:${d.offset} moved to ${d.quarantined_to} (${d.lines_dropped} lines dropped)`;
      state.recoveries.push({ ...evidenceOf(event, summary), quarantined_to: d.quarantined_to });
      return state;
    }
    case 'log.repaired': {
      const d = event.data;
      state.recoveries.push({ ...evidenceOf(event, `${d.reason}: the newline of seq ${d.seq} restored at ${d.segment}:${d.offset}`), quarantined_to: null });
      return state;
    }
    case FlowEventType.started:
    case FlowEventType.phase_changed:
      setOwn(state.phase_marks, event.stream, evidenceOf(event, event.type === FlowEventType.started ? 'flow started' : `phase ${event.data.to}`));
      return state;
    case 'session.started':
      sessionMarks(state, event.data.session_id).started ??= evidenceOf(event, `session ${event.data.display_name} started`);
      return state;
    case 'session.ended':
      sessionMarks(state, event.data.session_id).ended ??= evidenceOf(event, `session ended ${event.data.status}`);
      return state;
    case 'session.lapsed':
      sessionMarks(state, event.data.session_id).lapsed = evidenceOf(event, `lease lapsed at ${event.data.lapsed_at} (last seen ${event.data.last_seen})`);
      return state;
    default:
      return state;
  }
}

/** A record keyed by a checked id: defineProperty keeps a key like `__proto__` plain data. */
function setOwn<T>(record: Record<string, T>, key: string, value: T): T {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  return value;
}

function sessionMarks(state: AuditLogState, id: string): AuditLogState['sessions'][string] {
  return Object.hasOwn(state.sessions, id) ? state.sessions[id]! : setOwn(state.sessions, id, { started: null, ended: null, lapsed: null });
}

export const auditLogProjection: Projection<AuditLogState, { v: 1; type: 'audit_log'; generated_at: string; rejected: number; recoveries: number }> = {
  name: 'audit_log',
  version: 1,
  init: initAuditLog,
  apply: applyAuditLog,
  view: (state, now) => ({ v: 1, type: 'audit_log', generated_at: now, rejected: state.rejected.length, recoveries: state.recoveries.length }),
};
