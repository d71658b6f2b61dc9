import { closeSync, openSync, readSync } from 'node:fs';
import type { StoredEvent } from '../../../events/envelope.js';
import { parseStoredLine } from '../stored-line.js';
import { NEWLINE } from './line-reader.js';
import { sealProblem } from './seal.js';

/**
 * What lies after the committed end of the last segment, told apart before anything touches it.
 *
 * A line whose JSON parses, whose seal holds and which chains onto the committed head is a whole
 * event the writer wrote with one `write()`: it may well have been acknowledged (only the newline
 * that ends it is missing or was damaged afterwards). Keeping an event that was not acknowledged
 * is safe (a retry with its idempotency key deduplicates); throwing away one that was is loss. So
 * such a tail is `unterminated_event`: repaired in place, never quarantined. Anything else there
 * (a prefix of a line, bytes that do not chain, the whole lines of a batch whose last line is
 * missing) is a `torn` write: never acknowledged, quarantined.
 */
export const TailKind = { torn: 'torn', unterminatedEvent: 'unterminated_event' } as const;
export type TailKind = (typeof TailKind)[keyof typeof TailKind];

/** How the newline of an unterminated event is restored. */
export const NewlineRepair = { missing: 'newline_missing', damaged: 'newline_damaged' } as const;
export type NewlineRepair = (typeof NewlineRepair)[keyof typeof NewlineRepair];

export type UncommittedTail =
  | { kind: typeof TailKind.torn; offset: number; bytes: number; lines: number }
  | {
      kind: typeof TailKind.unterminatedEvent;
      offset: number;
      bytes: number;
      /** The seq of the line whose newline is restored (the last of its batch). */
      seq: number;
      /** The events the repair makes part of the log (the batch's complete lines, then that one). */
      events: StoredEvent[];
      repair: NewlineRepair;
      /** The byte written: appended at the end (missing), or overwriting the damaged last byte. */
      repairOffset: number;
      /** The byte that stood where the newline belongs (damaged), as two hex digits. */
      replaced: string | null;
    };

/** Where the committed content ends: the next event is `seq`, chained onto `prevHash`. */
export interface CommittedEnd {
  offset: number;
  seq: number;
  prevHash: string;
}

/** Reads the bytes after `end` in the segment file (at most `size - offset`) and classifies them. */
export function readUncommittedTail(path: string, end: CommittedEnd, size: number): UncommittedTail | undefined {
  const length = size - end.offset;
  if (length <= 0) return undefined;
  const bytes = Buffer.alloc(length);
  const fd = openSync(path, 'r');
  try {
    let got = 0;
    while (got < length) {
      const read = readSync(fd, bytes, got, length - got, end.offset + got);
      if (read === 0) break;
      got += read;
    }
    return classifyTail(bytes.subarray(0, got), end);
  } finally {
    closeSync(fd);
  }
}

/** Pure: the classification of `bytes`, the whole uncommitted tail starting at `end.offset`. */
export function classifyTail(bytes: Buffer, end: CommittedEnd): UncommittedTail | undefined {
  if (bytes.length === 0) return undefined;
  const torn = (lines: number): UncommittedTail => ({ kind: TailKind.torn, offset: end.offset, bytes: bytes.length, lines });
  const events: StoredEvent[] = [];
  let seq = end.seq;
  let prev = end.prevHash;
  let lineStart = 0;
  // The complete lines: a batch whose last line is still to come. Each must chain, as the scan checked.
  for (let nl = bytes.indexOf(NEWLINE, 0); nl >= 0; nl = bytes.indexOf(NEWLINE, lineStart)) {
    const event = chainedLine(bytes, lineStart, nl, seq, prev);
    if (event === undefined) return torn(countLines(bytes));
    events.push(event);
    seq += 1;
    prev = event.hash;
    lineStart = nl + 1;
  }
  const fragment = bytes.length - lineStart;
  if (fragment === 0) return torn(events.length);
  // The fragment is a whole line whose newline is missing, or whose newline was changed to another byte.
  const candidates: { end: number; repair: NewlineRepair }[] = [
    { end: bytes.length, repair: NewlineRepair.missing },
    { end: bytes.length - 1, repair: NewlineRepair.damaged },
  ];
  for (const candidate of candidates) {
    if (candidate.end <= lineStart) continue;
    const event = chainedLine(bytes, lineStart, candidate.end, seq, prev);
    if (event === undefined) continue;
    // The line must end its batch: a batch is acknowledged only once whole.
    const batchEnd = event.batch_end ?? event.seq;
    if (batchEnd !== event.seq || events.some((e) => (e.batch_end ?? e.seq) !== batchEnd)) return torn(events.length);
    const damaged = candidate.repair === NewlineRepair.damaged;
    return {
      kind: TailKind.unterminatedEvent,
      offset: end.offset,
      bytes: bytes.length,
      seq: event.seq,
      events: [...events, event],
      repair: candidate.repair,
      repairOffset: end.offset + (damaged ? bytes.length - 1 : bytes.length),
      replaced: damaged ? bytes[bytes.length - 1]!.toString(16).padStart(2, '0') : null,
    };
  }
  return torn(events.length);
}

/** The stored event on bytes[start, stop) when it parses, its seal holds and it chains at `seq` onto `prev`. */
function chainedLine(bytes: Buffer, start: number, stop: number, seq: number, prev: string): StoredEvent | undefined {
  const parsed = parseStoredLine(bytes.toString('utf8', start, stop));
  if (typeof parsed === 'string' || parsed.seq !== seq || parsed.prev !== prev) return undefined;
  // sealProblem flips a byte of the buffer while it hashes: give it a copy of the line.
  const line = Buffer.from(bytes.subarray(start, stop));
  return sealProblem(line, 0, line.length, parsed.hash) === undefined ? parsed : undefined;
}

function countLines(bytes: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(NEWLINE, 0); at >= 0; at = bytes.indexOf(NEWLINE, at + 1)) count++;
  return count;
}

/** The words `log verify` and the error of a read use for a tail. */
export function describeTail(tail: UncommittedTail): string {
  if (tail.kind === TailKind.unterminatedEvent) {
    const how = tail.repair === NewlineRepair.missing ? 'is missing' : `was changed to 0x${tail.replaced}`;
    return `the last line (seq ${tail.seq}) is a whole event whose newline ${how}: an acknowledged event, repaired in place by the next append (or baton log repair)`;
  }
  const lines = tail.lines > 0 ? ` (${tail.lines} complete line${tail.lines === 1 ? '' : 's'} of a batch whose last line is missing)` : '';
  return `${tail.bytes} bytes after the last complete event are a torn write${lines}: never acknowledged, moved to quarantine/ by the next append (or baton log repair)`;
}
