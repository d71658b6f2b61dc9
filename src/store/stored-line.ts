import type { StoredEvent } from '../../events/envelope.js';

/**
 * The fast structural check of a stored line, used on every read. The full check (envelope
 * schema, recomputed hash, canonical bytes) is `verify`'s job: running it on every replayed event
 * would cost replay much of its speed. Reads still refuse anything that is not a well-formed
 * envelope and check seq and `prev` continuity as they go; each event's data is checked once by
 * the catalog as the projection runner decodes it.
 */
export function parseStoredLine(text: string): StoredEvent | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'line is not valid JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'line is not a JSON object';
  const e = value as Record<string, unknown>;
  if (e['v'] !== 1) return 'v must be 1';
  if (typeof e['seq'] !== 'number' || !Number.isInteger(e['seq']) || e['seq'] < 1) return 'seq must be a positive integer';
  if (typeof e['id'] !== 'string') return 'id must be a string';
  if (typeof e['type'] !== 'string') return 'type must be a string';
  if (typeof e['stream'] !== 'string') return 'stream must be a string';
  if (typeof e['at'] !== 'string') return 'at must be a string';
  if (typeof e['actor'] !== 'string') return 'actor must be a string';
  const data = e['data'];
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'data must be an object';
  if (typeof e['prev'] !== 'string' || (e['prev'] as string).length !== 64) return 'prev must be a 64-character hash';
  if (typeof e['hash'] !== 'string' || (e['hash'] as string).length !== 64) return 'hash must be a 64-character hash';
  const key = e['idempotency_key'];
  if (key !== undefined && typeof key !== 'string') return 'idempotency_key must be a string';
  const batchEnd = e['batch_end'];
  if (batchEnd !== undefined && (typeof batchEnd !== 'number' || batchEnd < (e['seq'] as number))) return 'batch_end must be ≥ seq';
  return e as StoredEvent;
}
