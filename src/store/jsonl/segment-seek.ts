import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { StoredEvent } from '../../../events/envelope.js';
import { GENESIS_HASH } from '../../../events/patterns.js';
import { scanFrom, type Cursor, type ScanEnd, type Segment } from './segment-scan.js';

/**
 * Finding a position in the log without walking it: the first event's cursor, the byte offset of a
 * seq by binary search, a cursor for a seq, and the committed tail from the end of the last segment.
 */

export function startCursor(segments: readonly Segment[]): Cursor | undefined {
  const first = segments[0];
  return first ? { segment: first, offset: 0, seq: first.firstSeq, prevHash: first.firstSeq === 1 ? GENESIS_HASH : undefined } : undefined;
}

function readWindow(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  const got = readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, got);
}

const SEEK_WINDOW = 64 * 1024;

/** The seq of the first complete line starting at or after `position`, with its offset. */
function lineAfter(fd: number, position: number, limit: number): { offset: number; seq: number } | undefined {
  let start = position;
  if (position > 0) {
    // Find the newline that ends the line containing position - 1.
    let at = position - 1;
    for (;;) {
      if (at >= limit) return undefined;
      const window = readWindow(fd, at, Math.min(SEEK_WINDOW, limit - at));
      const nl = window.indexOf(0x0a);
      if (nl >= 0) {
        start = at + nl + 1;
        break;
      }
      at += window.length;
      if (window.length === 0) return undefined;
    }
  }
  if (start >= limit) return undefined;
  const head = readWindow(fd, start, Math.min(200, limit - start)).toString('utf8');
  const match = /^\{"v":1,"seq":(\d+),/.exec(head);
  if (!match) return undefined;
  return { offset: start, seq: Number(match[1]) };
}

/**
 * The byte offset in `segment` of the line holding `seq` (or of the last line before it), found
 * by binary search on the `"seq":` prefix every canonical line starts with. Scanning forward from
 * the result reaches `seq` after at most one window of lines.
 */
export function seekOffset(segment: Segment, seq: number): number {
  if (seq <= segment.firstSeq) return 0;
  const fd = openSync(segment.path, 'r');
  try {
    const size = fstatSync(fd).size;
    let lo = 0;
    let hi = size;
    while (hi - lo > SEEK_WINDOW) {
      const mid = Math.floor((lo + hi) / 2);
      const found = lineAfter(fd, mid, hi);
      if (!found) {
        hi = mid;
        continue;
      }
      if (found.seq === seq) return found.offset;
      if (found.seq < seq) lo = found.offset;
      else hi = mid;
    }
    return lo;
  } finally {
    closeSync(fd);
  }
}

/** A cursor positioned so that scanning from it yields `seq` first (events before it skipped by the caller). */
export function cursorFor(segments: readonly Segment[], seq: number): Cursor | undefined {
  let chosen: Segment | undefined;
  for (const segment of segments) {
    if (segment.firstSeq <= seq) chosen = segment;
    else break;
  }
  if (!chosen) return startCursor(segments);
  const offset = seekOffset(chosen, seq);
  if (offset === 0) return { segment: chosen, offset: 0, seq: chosen.firstSeq, prevHash: chosen.firstSeq === 1 ? GENESIS_HASH : undefined };
  const fd = openSync(chosen.path, 'r');
  try {
    const head = readWindow(fd, offset, 200).toString('utf8');
    const match = /^\{"v":1,"seq":(\d+),/.exec(head);
    if (!match) return { segment: chosen, offset: 0, seq: chosen.firstSeq, prevHash: chosen.firstSeq === 1 ? GENESIS_HASH : undefined };
    return { segment: chosen, offset, seq: Number(match[1]), prevHash: undefined };
  } finally {
    closeSync(fd);
  }
}

/**
 * The committed end of the log, found from the end of the last segment without reading the whole
 * log: start at a line some distance before the end and scan forward. When that start lands inside
 * an unfinished batch (its first line is not in view), start further back.
 */
export function findTail(segments: readonly Segment[]): { end: ScanEnd; last: StoredEvent | undefined } {
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i]!;
    for (let distance = 256 * 1024; ; distance *= 4) {
      const start = lineStartBefore(segment, distance);
      let last: StoredEvent | undefined;
      const scan = scanFrom(segments, start);
      let step = scan.next();
      while (!step.done) {
        last = step.value.event;
        step = scan.next();
      }
      const end = step.value;
      const ambiguous = start.offset > 0 && end.cursor.segment.name === segment.name && end.cursor.offset === start.offset;
      if (ambiguous) continue;
      if (last !== undefined || i === 0 || end.uncommittedLines > 0 || end.uncommittedBytes > 0) {
        if (last === undefined && end.cursor.prevHash === undefined && i > 0) {
          // Only torn bytes in a freshly rolled segment: the head is the previous segment's tail.
          const before = findTail(segments.slice(0, i));
          return { end: { ...end, cursor: { ...end.cursor, prevHash: before.end.cursor.prevHash } }, last: before.last };
        }
        return { end, last };
      }
      break;
    }
  }
  return { end: { cursor: emptyCursor(), uncommittedBytes: 0, uncommittedLines: 0 }, last: undefined };
}

function emptyCursor(): Cursor {
  return { segment: { name: '', firstSeq: 1, path: '' }, offset: 0, seq: 1, prevHash: GENESIS_HASH };
}

/** The start of a line about `distance` bytes before the end of the segment (or its start). */
function lineStartBefore(segment: Segment, distance: number): Cursor {
  const fromStart: Cursor = { segment, offset: 0, seq: segment.firstSeq, prevHash: segment.firstSeq === 1 ? GENESIS_HASH : undefined };
  const fd = openSync(segment.path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size <= distance) return fromStart;
    const found = lineAfter(fd, size - distance, size);
    return found ? { segment, offset: found.offset, seq: found.seq, prevHash: undefined } : fromStart;
  } finally {
    closeSync(fd);
  }
}
