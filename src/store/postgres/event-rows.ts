import type { StoredEvent } from '../../../events/envelope.js';
import { LogCorruptError } from '../../errors.js';
import { serializeEvent } from '../hash.js';
import { parseStoredLine } from '../stored-line.js';

/**
 * Events ↔ rows of `baton_events`. A batch is written with one INSERT over `unnest` of column
 * arrays (one round trip whatever its size). `line` holds the canonical JSON exactly as hashed;
 * `data` (jsonb) is derived from it by the server, so the two can never disagree on the way in.
 */

export interface EventRowArrays {
  seq: number[];
  id: string[];
  type: string[];
  stream: string[];
  streamVersion: number[];
  at: string[];
  actor: string[];
  idempotencyKey: (string | null)[];
  batchEnd: (number | null)[];
  prev: string[];
  hash: string[];
  line: string[];
}

export function emptyRowArrays(): EventRowArrays {
  return { seq: [], id: [], type: [], stream: [], streamVersion: [], at: [], actor: [], idempotencyKey: [], batchEnd: [], prev: [], hash: [], line: [] };
}

/** Add an event; `streamVersion` is its position in its stream (1 for the stream's first event). */
export function pushRow(rows: EventRowArrays, event: StoredEvent, streamVersion: number): void {
  rows.seq.push(event.seq);
  rows.id.push(event.id);
  rows.type.push(event.type);
  rows.stream.push(event.stream);
  rows.streamVersion.push(streamVersion);
  rows.at.push(event.at);
  rows.actor.push(event.actor);
  rows.idempotencyKey.push(event.idempotency_key ?? null);
  rows.batchEnd.push(event.batch_end ?? null);
  rows.prev.push(event.prev);
  rows.hash.push(event.hash);
  rows.line.push(serializeEvent(event));
}

/** The INSERT for `rows`, as a CTE body; `$1` is the workspace, the arrays follow from `$first`. */
export function insertEventsSql(first: number): string {
  const p = (i: number): string => `$${first + i}`;
  return `INSERT INTO baton_events (workspace_id, seq, id, type, stream, stream_version, at, actor, data, idempotency_key, batch_end, prev, hash, line)
    SELECT $1, u.seq, u.id, u.type, u.stream, u.stream_version, u.at::timestamptz, u.actor, (u.line::jsonb) -> 'data', u.idempotency_key, u.batch_end, u.prev, u.hash, u.line
    FROM unnest(${p(0)}::bigint[], ${p(1)}::text[], ${p(2)}::text[], ${p(3)}::text[], ${p(4)}::integer[], ${p(5)}::text[], ${p(6)}::text[], ${p(7)}::text[], ${p(8)}::bigint[], ${p(9)}::text[], ${p(10)}::text[], ${p(11)}::text[])
      AS u(seq, id, type, stream, stream_version, at, actor, idempotency_key, batch_end, prev, hash, line)`;
}

export function rowArrayParams(rows: EventRowArrays): unknown[] {
  return [
    rows.seq,
    rows.id,
    rows.type,
    rows.stream,
    rows.streamVersion,
    rows.at,
    rows.actor,
    rows.idempotencyKey,
    rows.batchEnd,
    rows.prev,
    rows.hash,
    rows.line,
  ];
}

/** A stored row back to its event (bigint columns arrive as strings). */
export function eventFromLine(line: string, seqColumn: string | number, offset: number): StoredEvent {
  const parsed = parseStoredLine(line);
  const seq = Number(seqColumn);
  if (typeof parsed === 'string') throw new LogCorruptError(`event at seq ${seq} is corrupt: ${parsed}`, { seq, offset, reason: parsed });
  if (parsed.seq !== seq) {
    const reason = `stored line says seq ${parsed.seq} in the row of seq ${seq}`;
    throw new LogCorruptError(`event at seq ${seq} is corrupt: ${reason}`, { seq, offset, reason });
  }
  return parsed;
}
