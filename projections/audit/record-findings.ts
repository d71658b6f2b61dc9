import { decideLapses } from '../../deciders/sessions.js';
import { DeliveryState } from '../../events/coordination/vocabulary.js';
import { livenessOf } from '../coordination/liveness.js';
import { clockOf, currentLapse } from '../coordination/sessions.js';
import { receiptState } from '../coordination/signals.js';
import type { CoordinationState, SignalRecord } from '../coordination/state.js';
import type { FlowState } from '../flow/flow-state.js';
import { ownValue } from '../own-keys.js';
import type { WorkUnitsState } from '../work-units/records.js';
import { duration, elapsedMs, eventsOf, finding } from './evidence.js';
import type { AuditLogState } from './log-fold.js';
import type { AuditWindows, EventEvidence, Finding } from './types.js';

/**
 * The coordination record against the clock: sessions that went away without a word (their lapse
 * unrecorded, or never ended at all), signals still waiting for the ACK they asked for, and flows
 * that have sat in one phase past the window.
 */

/**
 * Sessions idle past their TTL (liveness.ts: `stale`) whose lapse no event records. One that holds
 * WUs is what `decideLapses` would record (the rule every command applies, here asked of the audit's
 * position), and `--fix` records it; one that holds nothing has no lapse to record, only an end.
 */
export function sessionFindings(fold: WorkUnitsState, coordination: CoordinationState, log: AuditLogState, now: string): Finding[] {
  const out: Finding[] = [];
  const lapses = decideLapses(fold, now)?.outcome ?? [];
  const unrecorded = new Set(lapses.map((l) => l.session_id));
  for (const lapse of lapses) {
    const marks = ownValue(log.sessions, lapse.session_id);
    out.push(
      finding({
        code: 'SESSION_LAPSE_UNRECORDED',
        severity: 'warn',
        subject: { kind: 'session', id: lapse.session_id },
        message: `session ${lapse.session_id} was last seen at ${lapse.last_seen}; its lease lapsed at ${lapse.lapsed_at} while it held ${lapse.held_wus.join(', ')}, and no session.lapsed records it`,
        events: eventsOf(marks?.started, marks?.lapsed),
        resolve: { kind: 'audit_fix' },
        fix: { kind: 'lapse', session: lapse.session_id },
      }),
    );
  }
  for (const session of coordination.sessions.values()) {
    if (unrecorded.has(session.session_id) || currentLapse(session) !== null) continue;
    const liveness = livenessOf(clockOf(session), now);
    if (liveness.kind !== 'stale') continue;
    const marks = ownValue(log.sessions, session.session_id);
    out.push(
      finding({
        code: 'SESSION_NEVER_ENDED',
        severity: 'info',
        subject: { kind: 'session', id: session.session_id },
        message: `session ${session.session_id} (${session.display_name}) has been idle for ${duration(liveness.idle_ms)}, past its TTL of ${duration(session.ttl_seconds * 1000)}, and never ended`,
        events: eventsOf(marks?.started),
        resolve: { kind: 'end_session', session: session.session_id },
      }),
    );
  }
  return out;
}

function signalEvidence(record: SignalRecord): EventEvidence {
  const d = record.data;
  const to = d.recipients.length === 0 ? 'everyone' : d.recipients.join(', ');
  return {
    seq: record.seq,
    at: record.at,
    type: 'signal.sent',
    stream: `thread/${d.thread_id}`,
    actor: record.actor,
    summary: `${d.intent} from ${d.sender_identity} to ${to}: ${d.message.slice(0, 80)}`,
  };
}

const answered = (state: string | null): boolean => state === DeliveryState.acked || state === DeliveryState.rejected;

/** Signals that require an ACK and have none (an ACK or a REJECT from each recipient; from anyone, for a broadcast) after the window. */
export function signalFindings(coordination: CoordinationState, now: string, windows: AuditWindows): Finding[] {
  const out: Finding[] = [];
  for (const record of coordination.signals) {
    const d = record.data;
    if (!d.requires_ack || elapsedMs(record.at, now) <= windows.ack_seconds * 1000) continue;
    const readers = coordination.receipts.get(d.signal_id);
    const waiting =
      d.recipients.length === 0
        ? [...(readers?.values() ?? [])].some(answered)
          ? []
          : ['anyone']
        : d.recipients.filter((r) => !answered(receiptState(coordination, d.signal_id, r)));
    if (waiting.length === 0) continue;
    out.push(
      finding({
        code: 'SIGNAL_ACK_OVERDUE',
        severity: 'warn',
        subject: { kind: 'signal', id: d.signal_id },
        message: `signal ${d.signal_id} required an ACK ${duration(elapsedMs(record.at, now))} ago (window ${duration(windows.ack_seconds * 1000)}); none from ${waiting.join(', ')}`,
        events: [signalEvidence(record)],
        resolve: { kind: 'answer_signal', signal: d.signal_id },
      }),
    );
  }
  return out;
}

/** Active flows whose current phase began (its `flow.phase_changed`, else the start) longer ago than the window. */
export function flowFindings(flows: FlowState, log: AuditLogState, now: string, windows: AuditWindows): Finding[] {
  const out: Finding[] = [];
  for (const record of [flows.flows.orchestrate, flows.flows.team]) {
    if (record === null || record.context.status !== 'active') continue;
    const mark = ownValue(log.phase_marks, record.stream) ?? null;
    const since = mark?.at ?? record.context.started_at;
    const idle = elapsedMs(since, now);
    if (idle <= windows.flow_phase_seconds * 1000) continue;
    out.push(
      finding({
        code: 'FLOW_STUCK',
        severity: 'warn',
        subject: { kind: 'flow', id: record.context.flow_id },
        message: `flow ${record.context.flow_id} (${record.context.variant}) has been in phase ${record.context.current_phase} for ${duration(idle)}, past the window of ${duration(windows.flow_phase_seconds * 1000)}`,
        events: eventsOf(mark),
        resolve: { kind: 'flow_update' },
      }),
    );
  }
  return out;
}
