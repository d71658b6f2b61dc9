import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync, type Dirent } from 'node:fs';
import { unsafePath } from '../../artifacts/owned-paths.js';
import { unusableStoreFolder } from '../unusable-store-folder.js';
import { join } from 'node:path';
import type { StoredEvent } from '../../../events/envelope.js';
import { GENESIS_HASH } from '../../../events/patterns.js';
import { LogCorruptError } from '../../errors.js';
import { parseStoredLine } from '../stored-line.js';
import { isAsciiBlock, lineText } from './line-text.js';
import { CHUNK_BYTES, LineReader, NEWLINE } from './line-reader.js';
import { SealProblem, sealProblem, sealShapeHolds } from './seal.js';
import { DEFAULT_SEAL_WORKER_MIN_BYTES, SealChecker, type CheckedLine } from './seal-checker.js';
import type { SealDigests } from './seal-digests.js';
import { segmentFirstSeq } from './layout.js';

/**
 * Reading the segment files: listing them, walking committed events forward from a position with
 * seq/prev continuity checks, finding the byte offset of a seq by binary search, and locating the
 * committed tail. "Committed" excludes an unterminated last line and the lines of a multi-event
 * batch whose last line is missing: both are a write in flight or torn by a crash.
 */

export interface Segment {
  name: string;
  firstSeq: number;
  path: string;
}

export function listSegments(logDir: string): Segment[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(logDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    // `.baton/log` (or `.baton`) is a file, or cannot be listed: exit 5 naming it, not exit 1.
    throw unusableStoreFolder(logDir, error);
  }
  const segments: Segment[] = [];
  for (const entry of entries) {
    const firstSeq = segmentFirstSeq(entry.name);
    if (firstSeq === undefined) continue;
    const path = join(logDir, entry.name);
    // A segment that is a link would read (and extend) some other file as this log.
    if (entry.isSymbolicLink()) throw unsafePath(path, 'it is a symbolic link');
    segments.push({ name: entry.name, firstSeq, path });
  }
  return segments.sort((a, b) => a.firstSeq - b.firstSeq);
}

/** A position in the log: the next event to read is `seq`, at `offset` in `segment`. */
export interface Cursor {
  segment: Segment;
  offset: number;
  seq: number;
  /** Hash of the event before `seq` (for `prev` continuity), when known. */
  prevHash: string | undefined;
}

export interface ScannedEvent {
  event: StoredEvent;
  line: string;
  segment: Segment;
  offset: number;
  length: number;
}

export interface ScanEnd {
  /** Where committed content ends (the next event would go here). */
  cursor: Cursor;
  /** Bytes after the committed content in the last segment read: a torn or in-flight write. */
  uncommittedBytes: number;
  /** How many complete lines belong to an unfinished batch at the end. */
  uncommittedLines: number;
}

function corrupt(segment: Segment, offset: number, seq: number, reason: string): LogCorruptError {
  return new LogCorruptError(`log corrupt at seq ${seq} (segment ${segment.name}, byte ${offset}): ${reason}`, {
    seq,
    offset,
    segment: segment.name,
    reason,
  });
}

/**
 * Whether `needed` more complete lines follow position `from` of the segment: first counted in
 * `bytes` (the read buffer, whose byte 0 is at file offset `bytesOffset`), then, when the batch
 * runs past it, in the file itself (read-ahead in 1 MiB chunks; only newlines are looked at).
 */
function linesFollow(source: string | number, bytes: Buffer, bytesOffset: number, from: number, needed: number): boolean {
  let count = 0;
  for (let at = bytes.indexOf(NEWLINE, from); at >= 0; at = bytes.indexOf(NEWLINE, at + 1)) {
    if (++count >= needed) return true;
  }
  const fd = typeof source === 'number' ? source : openSync(source, 'r');
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let position = bytesOffset + bytes.length;
    for (;;) {
      const got = readSync(fd, buffer, 0, buffer.length, position);
      if (got === 0) return false;
      const view = buffer.subarray(0, got);
      for (let at = view.indexOf(NEWLINE, 0); at >= 0; at = view.indexOf(NEWLINE, at + 1)) {
        if (++count >= needed) return true;
      }
      position += got;
    }
  } finally {
    if (typeof source !== 'number') closeSync(fd);
  }
}

/**
 * Walk committed events from `start` through the last segment. Yields each committed event once,
 * in order; throws LOG_CORRUPT at the first line that breaks the envelope, seq or prev. Returns the
 * end position and what lies after it.
 *
 * A multi-event batch is committed when its last line is there. When a batch starts, the lines
 * after it are counted (newlines only): a complete batch is then yielded as it is read, each line
 * still checked in turn (a corrupt line inside it throws where it is met), so a large batch is
 * never held in memory; only a batch whose last line is missing (a write in flight, or torn by a
 * crash: the end of the log) is held back, checked, and reported as uncommitted.
 */
export function* scanFrom(
  segments: readonly Segment[],
  start: Cursor,
  /** An already open descriptor for a segment, to read it without opening it again (the writer's). */
  openDescriptor?: (segment: Segment) => number | undefined,
): Generator<ScannedEvent, ScanEnd> {
  const scan = scanRuns(segments, start, openDescriptor ? { openDescriptor } : {});
  for (;;) {
    const step = scan.next();
    if (step.done) return step.value;
    for (const item of step.value) yield item;
  }
}

/** A line whose seal the worker checks, with what an error about it names. */
interface UnsettledLine extends CheckedLine {
  segment: Segment;
  seq: number;
}

/**
 * The most committed events scanRuns hands over at once (it starts at 1, for point reads). Runs of
 * 256 rather than 1,024 keep fewer parsed events alive across each young-generation collection.
 */
const MAX_RUN = 256;

export interface ScanOptions {
  /** An already open descriptor for a segment, to read it without opening it again (the writer's). */
  openDescriptor?: (segment: Segment) => number | undefined;
  /**
   * Keep each line's text in ScannedEvent.line (default). Reads that hand out events only pass
   * false: a run of up to MAX_RUN lines then does not keep its line strings alive until it
   * is consumed, which the young-generation collector would otherwise copy.
   */
  withLines?: boolean;
  /** Check seals on a worker thread when at least this many bytes lie ahead (seal-checker.ts); Infinity: never. */
  sealWorkerMinBytes?: number;
  /**
   * The caller stops after about this many events (a bounded read): no worker is started when they
   * would hardly fill the threshold, however large the log after them is.
   */
  expectedEvents?: number;
  /**
   * The cache of seal-checked blocks (seal-digests.ts), used only by a long read: its blocks skip
   * the per-line checks, and the blocks it checks line by line are added when the read completes. A
   * worker starts at the first block it does not know. (The caller loads it for a long read only.)
   */
  sealDigests?: SealDigests;
  /** Whether the read is long (readIsLong), when the caller has already asked: the sizes are not stat'ed twice. */
  long?: boolean;
}

/** Bytes from `offset` in the first segment to the end of the last (0 for what cannot be stat'ed). */
function bytesAhead(segments: readonly Segment[], offset: number): number {
  let total = 0;
  for (let i = 0; i < segments.length; i++) {
    try {
      total += Math.max(0, statSync(segments[i]!.path).size - (i === 0 ? offset : 0));
    } catch {
      // A segment removed meanwhile: the scan reports it.
    }
  }
  return total;
}

/** A generous line size, to tell a bounded read too small for a seal worker. */
const LARGE_LINE_BYTES = 1024;

/** Where a read from `start` begins: the index of its first segment and the offset in it (index -1: past the last). */
function readStart(segments: readonly Segment[], start: Cursor): { segIndex: number; offset: number } {
  let segIndex = segments.findIndex((s) => s.name === start.segment.name);
  if (segIndex < 0) segIndex = segments.findIndex((s) => s.firstSeq > start.segment.firstSeq);
  return { segIndex, offset: segIndex >= 0 && segments[segIndex]!.name === start.segment.name ? start.offset : 0 };
}

/**
 * Whether a read from `start` is long: unbounded, with at least sealWorkerMinBytes ahead. A long
 * read checks seals on a worker and uses the cache of seal-checked blocks.
 */
export function readIsLong(segments: readonly Segment[], start: Cursor, options: Pick<ScanOptions, 'sealWorkerMinBytes' | 'expectedEvents'>): boolean {
  const { segIndex, offset } = readStart(segments, start);
  if (segIndex < 0) return false;
  const minBytes = options.sealWorkerMinBytes ?? DEFAULT_SEAL_WORKER_MIN_BYTES;
  const bounded = options.expectedEvents !== undefined && options.expectedEvents * LARGE_LINE_BYTES < minBytes;
  return !bounded && bytesAhead(segments.slice(segIndex), offset) >= minBytes;
}

/**
 * scanFrom in runs: the committed events in order, handed over in arrays (1, 2, 4, … up to
 * MAX_RUN events), so a long read pays the generator hand-over once per run rather than once per
 * event, while a point read still parses one line.
 *
 * Every line's seal is checked (seal.ts): inline, or on a long read by a worker thread, in which
 * case no run is handed over before the worker has vouched for its lines, and an error met on the
 * main thread is reported only once the lines before it are known sound (the first broken line in
 * log order is the one reported either way).
 */
export function* scanRuns(segments: readonly Segment[], start: Cursor, options: ScanOptions = {}): Generator<ScannedEvent[], ScanEnd> {
  const withLines = options.withLines ?? true;
  let run: ScannedEvent[] = [];
  let runLimit = 1;
  let expectedSeq = start.seq;
  let prevHash = start.prevHash;
  const { segIndex } = readStart(segments, start);
  // The committed end so far (a cursor is built from these once, at the end).
  let endSegment = start.segment;
  let endOffset = start.offset;
  let endSeq = start.seq;
  let endPrev = start.prevHash;
  /** Lines of an unfinished batch, held back. */
  let pending: ScannedEvent[] = [];
  /** The batch_end of the complete batch being yielded, when inside one. */
  let streaming: number | undefined;
  let uncommittedBytes = 0;
  if (segIndex < 0) return { cursor: { ...start }, uncommittedBytes: 0, uncommittedLines: 0 };
  const minBytes = options.sealWorkerMinBytes ?? DEFAULT_SEAL_WORKER_MIN_BYTES;
  const long = options.long ?? readIsLong(segments, start, options);
  const digests = long ? options.sealDigests : undefined;
  /** Digests of the blocks checked line by line in this read, kept once every line is known sound. */
  const checkedBlocks: string[] = [];
  /**
   * The seal worker, started at the first block of a long read the cache does not vouch for (a
   * replay of an unchanged log starts none; one of a log that grew since starts it where the new
   * bytes begin). Its ranges, and so the positions below, count segments from `workerBase`.
   */
  let seals: SealChecker | undefined;
  let workerDue = long;
  let workerBase = segIndex;
  /** Lines in `run` and `pending` whose seal the worker vouches for, not settled yet (log order). */
  let unsettled: UnsettledLine[] = [];
  /** Where the line being looked at starts (SealChecker.position): errors wait for the lines before it. */
  let position = 0;
  /** The first line of `unsettled` with a broken seal, as a corrupt error; the sound lines before it stay in `run`. */
  const settleSeals = (upTo: number): LogCorruptError | undefined => {
    if (seals === undefined || unsettled.length === 0) return undefined;
    let count = unsettled.length;
    while (count > 0 && unsettled[count - 1]!.position >= upTo) count--;
    const lines = count === unsettled.length ? unsettled : unsettled.slice(0, count);
    const verdict = seals.settle(lines);
    unsettled = count === unsettled.length ? [] : unsettled.slice(count);
    if (verdict.kind === 'sound') return undefined;
    const broken = lines[verdict.index]!;
    // The broken line may be in the run, held back in `pending`, or the line an error stopped at.
    const kept = run.findIndex((item) => item.segment === broken.segment && item.offset === broken.offset);
    if (kept >= 0) run = run.slice(0, kept);
    return corrupt(broken.segment, broken.offset, broken.seq, verdict.problem);
  };
  const handOver = (): ScannedEvent[] => {
    const broken = settleSeals(Number.POSITIVE_INFINITY);
    if (broken) throw broken;
    const out = run;
    run = [];
    return out;
  };
  try {
    for (let i = segIndex; i < segments.length; i++) {
      const segment = segments[i]!;
      let rangeIndex = i - workerBase;
      const offset = segment.name === endSegment.name ? endOffset : 0;
      position = SealChecker.position(rangeIndex, 0);
      if (segment.name !== endSegment.name) {
        if (pending.length > 0) throw corrupt(endSegment, endOffset, pending[0]!.event.seq, 'a batch ends at a segment boundary without its last event');
        if (segment.firstSeq !== expectedSeq) throw corrupt(segment, 0, expectedSeq, `segment ${segment.name} starts at seq ${segment.firstSeq}, expected ${expectedSeq}`);
        endSegment = segment;
        endOffset = 0;
        endSeq = expectedSeq;
        endPrev = prevHash;
      }
      const source = options.openDescriptor?.(segment) ?? segment.path;
      const reader = new LineReader(source, offset);
      for (const block of reader.blocks()) {
        const bytes = block.bytes;
        const blockDigest = digests?.digest(bytes);
        // Bytes seal-checked line by line before: their seals hold (seal-digests.ts).
        const vouched = blockDigest !== undefined && digests!.has(blockDigest);
        if (!vouched && workerDue) {
          workerDue = false;
          // No line is waiting for a worker yet, so positions may be counted from here on.
          seals = SealChecker.start(segments.slice(i).map((s) => s.path), block.offset, minBytes);
          if (seals !== undefined) {
            workerBase = i;
            rangeIndex = 0;
          }
        }
        const ascii = isAsciiBlock(bytes);
        let lineStart = 0;
        for (let nl = bytes.indexOf(NEWLINE, 0); nl >= 0; nl = bytes.indexOf(NEWLINE, lineStart)) {
          const lineOffset = block.offset + lineStart;
          const length = nl + 1 - lineStart;
          position = SealChecker.position(rangeIndex, lineOffset);
          const text = lineText(bytes, lineStart, nl, ascii);
          const parsed = parseStoredLine(text);
          if (typeof parsed === 'string') throw corrupt(segment, lineOffset, expectedSeq, parsed);
          if (parsed.seq !== expectedSeq) throw corrupt(segment, lineOffset, expectedSeq, `seq ${parsed.seq} where ${expectedSeq} was expected`);
          if (prevHash !== undefined && parsed.prev !== prevHash) throw corrupt(segment, lineOffset, expectedSeq, 'prev does not match the previous event hash (chain broken)');
          // A vouched block's lines were checked when it was first read: the same bytes parse to the same hash.
          if (!vouched) {
            if (seals !== undefined && seals.covers(rangeIndex, lineOffset, length)) {
              // The worker hashes it; its shape against the parsed hash costs nothing here.
              if (!sealShapeHolds(bytes, lineStart, nl, parsed.hash)) throw corrupt(segment, lineOffset, expectedSeq, SealProblem.NOT_CANONICAL);
              unsettled.push({ path: segment.path, offset: lineOffset, length, hash: parsed.hash, position, segment, seq: expectedSeq });
            } else {
              const problem = sealProblem(bytes, lineStart, nl, parsed.hash);
              if (problem !== undefined) throw corrupt(segment, lineOffset, expectedSeq, problem);
            }
          }
          // The seal is checked before what follows: an error further down this line waits for it too.
          position += 1;
          lineStart = nl + 1;
          const scanned: ScannedEvent = { event: parsed, line: withLines ? text : '', segment, offset: lineOffset, length };
          expectedSeq += 1;
          prevHash = parsed.hash;
          const batchEnd = parsed.batch_end;
          if (streaming !== undefined) {
            if (batchEnd !== streaming) throw corrupt(segment, lineOffset, parsed.seq, 'batch_end differs from the rest of its batch');
            run.push(scanned);
            if (run.length >= runLimit) {
              yield handOver();
              if (runLimit < MAX_RUN) runLimit *= 2;
            }
            if (batchEnd !== parsed.seq) continue;
            streaming = undefined;
          } else if (pending.length > 0 || (batchEnd !== undefined && batchEnd > parsed.seq)) {
            if (pending.length > 0 && pending[0]!.event.batch_end !== batchEnd) {
              throw corrupt(segment, lineOffset, parsed.seq, 'batch_end differs from the rest of its batch');
            }
            if (pending.length === 0 && linesFollow(source, bytes, block.offset, lineStart, batchEnd! - parsed.seq)) {
              streaming = batchEnd;
              run.push(scanned);
              continue;
            }
            pending.push(scanned);
            if (batchEnd !== parsed.seq) continue;
            for (const item of pending) run.push(item);
            pending = [];
          } else {
            run.push(scanned);
          }
          if (run.length >= runLimit) {
            yield handOver();
            if (runLimit < MAX_RUN) runLimit *= 2;
          }
          endSegment = segment;
          endOffset = lineOffset + length;
          endSeq = expectedSeq;
          endPrev = prevHash;
        }
        if (blockDigest !== undefined && !vouched) checkedBlocks.push(blockDigest);
      }
      position = SealChecker.position(rangeIndex, reader.tailOffset);
      if (streaming !== undefined) {
        // Counted complete, yet the segment ended inside it (it shrank while being read): corrupt.
        throw corrupt(segment, reader.tailOffset, expectedSeq, `the log ends inside a batch (expected seq ${streaming})`);
      }
      if (i === segments.length - 1) uncommittedBytes = reader.tailBytes;
      else if (reader.tailBytes > 0) throw corrupt(segment, reader.tailOffset, expectedSeq, 'unterminated line before the end of the log');
    }
    // The held-back lines of an unfinished batch were checked too (a broken one is reported).
    const broken = settleSeals(Number.POSITIVE_INFINITY);
    if (broken) throw broken;
    if (digests !== undefined && checkedBlocks.length > 0) {
      digests.add(checkedBlocks);
      digests.save();
    }
  } catch (error) {
    // A line before the one that failed here may have a broken seal the worker found: that one
    // comes first in the log, so it is the error. What was read before the bad line is handed over
    // first, as scanFrom did event by event.
    const earlier = settleSeals(position);
    seals?.close();
    if (run.length > 0) yield run;
    throw earlier ?? error;
  } finally {
    seals?.close();
  }
  if (run.length > 0) yield run;
  const pendingBytes = pending.reduce((sum, item) => sum + item.length, 0);
  return {
    cursor: { segment: endSegment, offset: endOffset, seq: endSeq, prevHash: endPrev },
    uncommittedBytes: uncommittedBytes + pendingBytes,
    uncommittedLines: pending.length,
  };
}

/** Reused by every tail catch-up: they read a few lines, and a fresh buffer each time costs GC work. */
let tailBuffer = Buffer.allocUnsafe(64 * 1024);
/** More than this after the tail is left to the full scan (it reads in bounded blocks). */
const TAIL_LINES_MAX_BYTES = 1 << 20;

/**
 * The writer's catch-up in its common shape: other processes appended a few whole batches to the
 * segment it writes (`fd`, now `size` bytes) since `cursor`. Each line gets the checks scanRuns
 * gives it — envelope, seq, prev, seal, batch_end — in one read, without what the full scan's
 * generality costs an append under the lock (listing the folder, stat'ing segments, a fresh read
 * buffer, generator hand-overs, all far dearer than the per-line work here). Returns undefined for anything
 * else: bytes after the last newline, a batch whose last line is missing, a line that fails a
 * check, over 1 MiB. The caller then runs the full scan from the same cursor, which reports or
 * recovers what it finds.
 */
export function scanTailLines(fd: number, cursor: Cursor, size: number): { events: StoredEvent[]; cursor: Cursor } | undefined {
  const length = size - cursor.offset;
  if (length <= 0 || length > TAIL_LINES_MAX_BYTES || cursor.prevHash === undefined) return undefined;
  if (tailBuffer.length < length) tailBuffer = Buffer.allocUnsafe(Math.max(length, tailBuffer.length * 2));
  const bytes = tailBuffer;
  if (readSync(fd, bytes, 0, length, cursor.offset) !== length || bytes[length - 1] !== NEWLINE) return undefined;
  const events: StoredEvent[] = [];
  const ascii = isAsciiBlock(bytes.subarray(0, length));
  let seq = cursor.seq;
  let prev = cursor.prevHash;
  /** The batch_end of the multi-event batch being read, when inside one. */
  let batchEnd: number | undefined;
  for (let lineStart = 0; lineStart < length; ) {
    // Found before `length`: the byte before it is a newline.
    const nl = bytes.indexOf(NEWLINE, lineStart);
    const parsed = parseStoredLine(lineText(bytes, lineStart, nl, ascii));
    if (typeof parsed === 'string' || parsed.seq !== seq || parsed.prev !== prev) return undefined;
    // Inside a multi-event batch, every line names the batch's last seq.
    if (batchEnd !== undefined && parsed.batch_end !== batchEnd) return undefined;
    if (sealProblem(bytes, lineStart, nl, parsed.hash) !== undefined) return undefined;
    events.push(parsed);
    batchEnd = parsed.batch_end !== undefined && parsed.batch_end > seq ? parsed.batch_end : undefined;
    seq += 1;
    prev = parsed.hash;
    lineStart = nl + 1;
  }
  // A batch whose last line is not there yet is a write cut short: the full scan recovers it.
  if (batchEnd !== undefined) return undefined;
  return { events, cursor: { segment: cursor.segment, offset: size, seq, prevHash: prev } };
}

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
