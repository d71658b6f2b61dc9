import type { SealedColumns, ValidatedBatch } from '../append-plan.js';
import type { ExpectedVersion } from '../contract.js';

/**
 * The arguments of `baton_append`, in the order its two forms take them (migrations 3–5): what the
 * adapter passes, and what the PostgreSQL tests pass when they call the function directly.
 */

/** The head the batch was sealed on. */
export interface SealedOn {
  seq: number;
  hash: string;
}

/** An expected version as the function takes it: a version ≥ 0 ("no_stream" is 0), or -1 for "stream_exists". */
export function expectedVersionArgument(expected: ExpectedVersion): number {
  return expected === 'no_stream' ? 0 : expected === 'stream_exists' ? -1 : expected;
}

/** What both forms take first: the workspace, the head sealed on, the idempotency key and the batch's digest. */
function leadingArguments(workspace: string, head: SealedOn, batch: ValidatedBatch): unknown[] {
  return [workspace, head.seq, head.hash, batch.idempotencyKey ?? null, batch.digest];
}

/** The batch's lines as one text, without the last newline. */
function linesText(bytes: Buffer): string {
  return bytes.toString('utf8', 0, bytes.length - 1);
}

/**
 * The batch form's 16 arguments: the expected versions as two arrays, and each column as text, one
 * value a line (no per-element array escaping, JSON being all quotes, on either side; the server
 * requires each line to be exactly its columns, migration 3).
 */
export function batchAppendArguments(
  workspace: string,
  channel: string,
  head: SealedOn,
  batch: ValidatedBatch,
  bytes: Buffer,
  columns: SealedColumns,
): unknown[] {
  return [
    ...leadingArguments(workspace, head, batch),
    [...batch.expected.keys()],
    [...batch.expected.values()].map(expectedVersionArgument),
    linesText(bytes),
    columns.ids.join('\n'),
    columns.types.join('\n'),
    columns.streams.join('\n'),
    columns.ats.join('\n'),
    columns.actorsJson.join('\n'),
    columns.dataJson.join('\n'),
    columns.hashes.join('\n'),
    channel,
  ];
}

/**
 * The one-event form's 15 arguments (migration 5): the event's columns as scalars and the expected
 * version of its own stream, or NULL.
 */
export function oneEventAppendArguments(
  workspace: string,
  channel: string,
  head: SealedOn,
  batch: ValidatedBatch,
  bytes: Buffer,
  columns: SealedColumns,
): unknown[] {
  const expected = batch.expected.get(batch.events[0]!.stream);
  return [
    ...leadingArguments(workspace, head, batch),
    expected === undefined ? null : expectedVersionArgument(expected),
    linesText(bytes),
    columns.ids[0],
    columns.types[0],
    columns.streams[0],
    columns.ats[0],
    columns.actorsJson[0],
    columns.dataJson[0],
    columns.hashes[0],
    channel,
  ];
}
