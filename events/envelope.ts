import { z } from 'zod';
import type { FieldProblem } from './validation.js';
import { ENVELOPE_VERSION, EVENT_TYPE_PATTERN, HASH_PATTERN, IDEMPOTENCY_KEY_PATTERN, STREAM_PATTERN } from './patterns.js';

export { ENVELOPE_VERSION } from './patterns.js';

const isoUtc = z.iso.datetime({ offset: false, precision: undefined });

/** One stored event, exactly as it sits in the log (data in its stored, possibly legacy, shape). */
export const StoredEventSchema = z.strictObject({
  v: z.literal(ENVELOPE_VERSION),
  seq: z.number().int().min(1),
  id: z.string().min(1).max(64),
  type: z.string().regex(EVENT_TYPE_PATTERN, 'must be a dotted lower-case event type like wu.claimed'),
  stream: z.string().regex(STREAM_PATTERN, 'must look like <category>/<id>, e.g. wu/WU-12'),
  at: isoUtc,
  actor: z.string().min(1).max(200),
  data: z.record(z.string(), z.unknown()),
  idempotency_key: z.string().regex(IDEMPOTENCY_KEY_PATTERN).optional(),
  /** Present on every event of a multi-event batch: the seq of the batch's last event. Lets
   * recovery recognise a batch torn by a crash and quarantine all of it (batches are atomic). */
  batch_end: z.number().int().min(1).optional(),
  prev: z.string().regex(HASH_PATTERN),
  hash: z.string().regex(HASH_PATTERN),
});
export type StoredEvent = z.infer<typeof StoredEventSchema>;

/** Why the catalog refused a stored event: its type is unknown, or its data fails the type's schema. */
export interface Rejection {
  reason: 'unknown_type' | 'invalid_data';
  problems: FieldProblem[];
}

/** What a caller hands to `append`: the store assigns seq, id, prev and hash. */
export const NewEventSchema = z.strictObject({
  type: z.string().regex(EVENT_TYPE_PATTERN, 'must be a dotted lower-case event type like wu.claimed'),
  stream: z.string().regex(STREAM_PATTERN, 'must look like <category>/<id>, e.g. wu/WU-12'),
  data: z.record(z.string(), z.unknown()),
  actor: z.string().min(1).max(200).optional(),
  at: isoUtc.optional(),
});
export type NewEvent = z.infer<typeof NewEventSchema>;
