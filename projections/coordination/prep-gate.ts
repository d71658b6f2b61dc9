import { DeliveryState } from '../../events/coordination/vocabulary.js';
import { readerIdentityOf } from './sessions.js';
import { inWorkspace, isDirectedTo, receiptState, type WorkspaceFilter } from './signals.js';
import type { CoordinationState, SignalRecord } from './state.js';

/**
 * The `wu prep` directed-signal gate (coordination.md §10), as a pure function any caller (the
 * minimal `wu prep` here, the work-unit issue's full one) can run on the fold.
 */
export interface GateSignal {
  signal_id: string;
  sender_identity: string;
  intent: string;
  requires_ack: boolean;
}

export interface PrepGateResult {
  passed: boolean;
  /** null: nobody to read for — the gate passes with detail `no reader`. */
  reader_identity: string | null;
  /** The session whose reader identity was used (acting session, else the claimant). */
  session_id: string | null;
  signals: GateSignal[];
  detail: string;
}

/** The reader: the acting session's identity, else the WU claimant session's, else none. */
export function gateReader(state: CoordinationState, wuId: string, actingSession: string | undefined): { reader: string | null; session: string | null } {
  const acting = actingSession === undefined ? undefined : state.sessions.get(actingSession);
  if (acting) return { reader: readerIdentityOf(acting), session: acting.session_id };
  const claimant = state.wus.get(wuId)?.claimant;
  const claimantSession = claimant ? state.sessions.get(claimant) : undefined;
  if (claimantSession) return { reader: readerIdentityOf(claimantSession), session: claimantSession.session_id };
  return { reader: null, session: null };
}

/** Directed to R, about W (its `wu_id`, or no `wu_id` and W's initiative), unread — or needing an ack it lacks. */
export function blockingSignals(state: CoordinationState, wuId: string, reader: string, workspace: WorkspaceFilter): SignalRecord[] {
  const initiative = state.wus.get(wuId)?.initiative ?? null;
  return state.signals.filter((record) => {
    const s = record.data;
    if (!inWorkspace(record, workspace) || !isDirectedTo(record, reader)) return false;
    const about = s.wu_id !== undefined ? s.wu_id === wuId : initiative !== null && s.initiative === initiative;
    if (!about) return false;
    const delivery = receiptState(state, s.signal_id, reader);
    return delivery === null || (s.requires_ack && delivery === DeliveryState.delivered);
  });
}

export function runPrepGate(state: CoordinationState, wuId: string, actingSession: string | undefined, workspace: WorkspaceFilter): PrepGateResult {
  const { reader, session } = gateReader(state, wuId, actingSession);
  if (reader === null) return { passed: true, reader_identity: null, session_id: null, signals: [], detail: 'no reader' };
  const signals = blockingSignals(state, wuId, reader, workspace).map((r) => ({
    signal_id: r.data.signal_id,
    sender_identity: r.data.sender_identity,
    intent: r.data.intent,
    requires_ack: r.data.requires_ack,
  }));
  return {
    passed: signals.length === 0,
    reader_identity: reader,
    session_id: session,
    signals,
    detail: signals.length === 0 ? `no unread directed signals for ${reader}` : `${signals.length} unread directed signal(s) for ${reader}`,
  };
}
