import { z } from 'zod';
import { eventsOn } from '../catalog.js';
import { canonicalIdentity, DELIVERY_STATES, idempotencyKey, isoTime, RECEIPT_VIAS, sessionId, signalId, threadId } from './identities.js';

/** The A2A.V1 receipt contract (coordination.md §5.2): exactly these fields. */
const receiptShape = {
  signal_id: signalId,
  reader_identity: canonicalIdentity,
  read_at: isoTime,
  delivery_state: z.enum(DELIVERY_STATES),
  idempotency_key: idempotencyKey.optional(),
};

export const A2AReceiptV1 = z.strictObject(receiptShape);
export type A2AReceiptV1 = z.infer<typeof A2AReceiptV1>;

/** What `receipt.recorded` stores: the contract plus Baton's extension keys. */
export const ReceiptRecordedData = z.strictObject({
  ...receiptShape,
  thread_id: threadId,
  session_id: sessionId.nullable(),
  via: z.enum(RECEIPT_VIAS),
  cause_signal_id: signalId.nullable(),
});
export type ReceiptRecordedData = z.infer<typeof ReceiptRecordedData>;

export function toA2AReceiptV1(data: ReceiptRecordedData): A2AReceiptV1 {
  const { signal_id, reader_identity, read_at, delivery_state, idempotency_key } = data;
  return { signal_id, reader_identity, read_at, delivery_state, ...(idempotency_key !== undefined ? { idempotency_key } : {}) };
}

export const RECEIPT_EVENTS = eventsOn('thread', [
  { type: 'receipt.recorded', schema: ReceiptRecordedData, description: 'A reader identity read, acknowledged or rejected a signal of the thread.' },
]);
