import type { StoredEvent } from '../../../events/envelope.js';
import { ConflictError, IdempotencyConflictError } from '../../errors.js';
import type { ValidatedBatch } from '../append-plan.js';

/** How the PostgreSQL adapter calls its append function (`baton_append`, migrations 3 to 5), and what it answers. */

/** After this many calls that found the head moved, an append locks the head before building. */
export const OPTIMISTIC_ATTEMPTS = 2;

export const APPEND_CALL =
  'SELECT status, head_seq, head_hash, head_last_id, lines, conflict_stream, conflict_actual FROM baton_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)';

/** Migration 5's one-event form (15 arguments; the batch form takes 16). */
export const APPEND_ONE_CALL =
  'SELECT status, head_seq, head_hash, head_last_id, lines, conflict_stream, conflict_actual FROM baton_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)';

export interface KnownHead {
  seq: number;
  hash: string;
  lastId: string;
}

export interface AppendRow {
  status: string;
  head_seq: string | null;
  head_hash: string | null;
  head_last_id: string | null;
  lines: string[] | null;
  conflict_stream: string | null;
  conflict_actual: number | null;
}

export type CallOutcome =
  { kind: 'written'; events: StoredEvent[]; head: KnownHead } | { kind: 'deduplicated'; events: StoredEvent[] } | { kind: 'moved'; head: KnownHead };

/** What does not change between attempts: the batch, and which form of `baton_append` takes it. */
export interface PreparedCall {
  batch: ValidatedBatch;
  /**
   * The one-event form applies (migration 5): one event, and an expected version (if any) for its
   * own stream only. An expected version for another stream (the contract allows it) takes the batch form.
   */
  single: boolean;
}

export function prepareCall(batch: ValidatedBatch): PreparedCall {
  const single = batch.events.length === 1 && [...batch.expected.keys()].every((stream) => stream === batch.events[0]!.stream);
  return { batch, single };
}

/** Map a constraint violation that slipped past the append's own checks to its contract error. */
export function constraintToConflict(error: unknown, batch: ValidatedBatch): unknown {
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  if (code !== '23505') return error;
  if (typeof constraint === 'string' && constraint.startsWith('baton_idempotency') && batch.idempotencyKey !== undefined) {
    return new IdempotencyConflictError(batch.idempotencyKey);
  }
  return new ConflictError(`another writer stored a conflicting event (${String(constraint)}); nothing was written`);
}
