import type { ReceiptRecordedData } from '../events/coordination/receipt.js';
import { DeliveryState, type ReceiptVia } from '../events/coordination/vocabulary.js';
import { receiptState } from '../projections/coordination/signals.js';
import type { CoordinationState } from '../projections/coordination/state.js';
import type { Decision } from './decision.js';

/**
 * Receipts of a read (coordination.md §7.2): the signals a reader was shown (by the inbox, a hook,
 * the watcher) become `delivered` for that reader, once. A signal the fold does not know, or one
 * the reader already has a receipt for, is skipped; nothing left is nothing to append. A receipt is
 * a fact about a read that already happened, so it names no expected version: a signal sent since
 * does not make it wrong.
 */
export interface RecordReceipts {
  /** The signals shown, in the order shown. */
  signalIds: readonly string[];
  reader: string;
  session: string | null;
  via: ReceiptVia;
  now: string;
}

export interface ReceiptsOutcome {
  /** The signals this decision marks delivered. */
  receipted: string[];
}

export function decideReceipts(command: RecordReceipts, state: CoordinationState): Decision<ReceiptsOutcome> | null {
  const receipts: ReceiptRecordedData[] = [];
  for (const id of new Set(command.signalIds)) {
    const record = state.signals[state.signal_index.get(id) ?? -1];
    if (record === undefined || receiptState(state, id, command.reader) !== null) continue;
    receipts.push({
      signal_id: id,
      reader_identity: command.reader,
      read_at: command.now,
      delivery_state: DeliveryState.delivered,
      thread_id: record.data.thread_id,
      session_id: command.session,
      via: command.via,
      cause_signal_id: null,
    });
  }
  if (receipts.length === 0) return null;
  return {
    events: receipts.map((r) => ({ type: 'receipt.recorded', stream: `thread/${r.thread_id}`, data: r })),
    expected: {},
    outcome: { receipted: receipts.map((r) => r.signal_id) },
  };
}
