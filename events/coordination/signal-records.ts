import type { A2ASignalV1, SignalSentData } from './signal.js';
import { A2A_SCHEMA_VERSION, Intent, InterruptClass } from './vocabulary.js';

/**
 * The zod-free helpers of signal.ts, for the read path (the fold, the inbox): the A2A.V1 field
 * list, the legacy upcaster and the contract projection. signal.ts re-exports them.
 */

/** The A2A.V1 signal contract's fields (coordination.md §5.1), in the order of signal.ts's `signalShape`. */
export const A2A_SIGNAL_V1_FIELDS = [
  'schema_version',
  'signal_id',
  'sender_identity',
  'recipients',
  'target_agent',
  'workspace_id',
  'thread_id',
  'reply_to',
  'intent',
  'interrupt_class',
  'requires_ack',
  'message',
  'idempotency_key',
  'origin',
  'wu_id',
  'initiative',
  'lane',
  'role',
  'created_at',
] as const;

export function defaultInterruptClass(recipients: readonly string[]): InterruptClass {
  return recipients.length > 0 ? InterruptClass.priority : InterruptClass.advisory;
}

/** Lift a legacy record to today's shape; a current record comes back unchanged. */
export function upcastLegacySignal(data: Record<string, unknown>): Record<string, unknown> {
  if (data['schema_version'] !== undefined) return data;
  const { id, sender, ...rest } = data;
  const out: Record<string, unknown> = { schema_version: A2A_SCHEMA_VERSION, ...rest };
  if (out['signal_id'] === undefined && id !== undefined) out['signal_id'] = id;
  if (out['sender_identity'] === undefined && sender !== undefined) out['sender_identity'] = sender;
  const target = out['target_agent'];
  let recipients = Array.isArray(out['recipients']) ? (out['recipients'] as unknown[]) : [];
  if (recipients.length === 0 && typeof target === 'string') recipients = [target];
  out['recipients'] = recipients;
  // Directed records always carry the alias; a mismatched one stays as stored (an integrity finding).
  if (recipients.length > 0 && target === undefined) out['target_agent'] = recipients[0];
  out['intent'] ??= Intent.INFO;
  out['requires_ack'] ??= false;
  out['thread_id'] ??= out['signal_id'];
  out['interrupt_class'] ??= defaultInterruptClass(recipients as string[]);
  out['origin'] ??= 'local';
  out['sender_session_id'] ??= null;
  return out;
}

/** The contract fields only: what the library hands to A2A consumers. */
export function toA2ASignalV1(data: SignalSentData | A2ASignalV1): A2ASignalV1 {
  const out: Record<string, unknown> = {};
  for (const key of A2A_SIGNAL_V1_FIELDS) {
    const value = (data as Record<string, unknown>)[key];
    if (value !== undefined) out[key] = value;
  }
  return out as A2ASignalV1;
}
