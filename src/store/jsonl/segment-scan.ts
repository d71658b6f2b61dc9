import { readdirSync, readSync, statSync, type Dirent } from 'node:fs';
import { unsafePath } from '../../artifacts/owned-paths.js';
import { unusableStoreFolder } from '../unusable-store-folder.js';
import { join } from 'node:path';
import type { StoredEvent } from '../../../events/envelope.js';
import { LogCorruptError } from '../../errors.js';
import { parseStoredLine } from '../stored-line.js';
import { isAsciiBlock, lineText } from './line-text.js';
import { LineReader, linesFollow, NEWLINE } from './line-reader.js';
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
  const { segIndex } = readStart(segments, start);
  if (segIndex < 0) return { cursor: { ...start }, uncommittedBytes: 0, uncommittedLines: 0 };
  return yield* new RunScan(segments, start, segIndex, options).runs();
}

/** One scanRuns: where it is in the log, the run being filled, the batch being read, and the seal worker. */
class RunScan {
  private readonly withLines: boolean;
  private run: ScannedEvent[] = [];
  private runLimit = 1;
  private expectedSeq: number;
  private prevHash: string | undefined;
  // The committed end so far (a cursor is built from these once, at the end).
  private endSegment: Segment;
  private endOffset: number;
  private endSeq: number;
  private endPrev: string | undefined;
  /** Lines of an unfinished batch, held back. */
  private pending: ScannedEvent[] = [];
  /** The batch_end of the complete batch being yielded, when inside one. */
  private streaming: number | undefined;
  private uncommittedBytes = 0;
  private readonly minBytes: number;
  private readonly digests: SealDigests | undefined;
  /** Digests of the blocks checked line by line in this read, kept once every line is known sound. */
  private readonly checkedBlocks: string[] = [];
  /**
   * The seal worker, started at the first block of a long read the cache does not vouch for (a
   * replay of an unchanged log starts none; one of a log that grew since starts it where the new
   * bytes begin). Its ranges, and so the positions below, count segments from `workerBase`.
   */
  private seals: SealChecker | undefined;
  private workerDue: boolean;
  private workerBase: number;
  /** The segment being read, counted from `workerBase` (SealChecker.position). */
  private rangeIndex = 0;
  /** Lines in `run` and `pending` whose seal the worker vouches for, not settled yet (log order). */
  private unsettled: UnsettledLine[] = [];
  /** Where the line being looked at starts (SealChecker.position): errors wait for the lines before it. */
  private position = 0;

  constructor(
    private readonly segments: readonly Segment[],
    start: Cursor,
    private readonly segIndex: number,
    private readonly options: ScanOptions,
  ) {
    this.withLines = options.withLines ?? true;
    this.expectedSeq = start.seq;
    this.prevHash = start.prevHash;
    this.endSegment = start.segment;
    this.endOffset = start.offset;
    this.endSeq = start.seq;
    this.endPrev = start.prevHash;
    this.minBytes = options.sealWorkerMinBytes ?? DEFAULT_SEAL_WORKER_MIN_BYTES;
    const long = options.long ?? readIsLong(segments, start, options);
    this.digests = long ? options.sealDigests : undefined;
    this.workerDue = long;
    this.workerBase = segIndex;
  }

  *runs(): Generator<ScannedEvent[], ScanEnd> {
    const segments = this.segments;
    try {
      for (let i = this.segIndex; i < segments.length; i++) {
        const segment = segments[i]!;
        this.enterSegment(i, segment);
        const offset = segment.name === this.endSegment.name ? this.endOffset : 0;
        const source = this.options.openDescriptor?.(segment) ?? segment.path;
        const reader = new LineReader(source, offset);
        for (const block of reader.blocks()) yield* this.blockRuns(i, segment, source, block);
        this.leaveSegment(i, segment, reader);
      }
      // The held-back lines of an unfinished batch were checked too (a broken one is reported).
      const broken = this.settleSeals(Number.POSITIVE_INFINITY);
      if (broken) throw broken;
      if (this.digests !== undefined && this.checkedBlocks.length > 0) {
        this.digests.add(this.checkedBlocks);
        this.digests.save();
      }
    } catch (error) {
      // A line before the one that failed here may have a broken seal the worker found: that one
      // comes first in the log, so it is the error. What was read before the bad line is handed over
      // first, as scanFrom did event by event.
      const earlier = this.settleSeals(this.position);
      this.seals?.close();
      if (this.run.length > 0) yield this.run;
      throw earlier ?? error;
    } finally {
      this.seals?.close();
    }
    if (this.run.length > 0) yield this.run;
    const pendingBytes = this.pending.reduce((sum, item) => sum + item.length, 0);
    return {
      cursor: { segment: this.endSegment, offset: this.endOffset, seq: this.endSeq, prevHash: this.endPrev },
      uncommittedBytes: this.uncommittedBytes + pendingBytes,
      uncommittedLines: this.pending.length,
    };
  }

  /** A segment after the one the read started in must continue it: no batch across the boundary, the next seq first. */
  private enterSegment(i: number, segment: Segment): void {
    this.rangeIndex = i - this.workerBase;
    this.position = SealChecker.position(this.rangeIndex, 0);
    if (segment.name === this.endSegment.name) return;
    if (this.pending.length > 0)
      throw corrupt(this.endSegment, this.endOffset, this.pending[0]!.event.seq, 'a batch ends at a segment boundary without its last event');
    if (segment.firstSeq !== this.expectedSeq)
      throw corrupt(segment, 0, this.expectedSeq, `segment ${segment.name} starts at seq ${segment.firstSeq}, expected ${this.expectedSeq}`);
    this.endSegment = segment;
    this.endOffset = 0;
    this.endSeq = this.expectedSeq;
    this.endPrev = this.prevHash;
  }

  /** What follows the segment's last newline: the log's uncommitted tail in the last segment, corrupt in any other. */
  private leaveSegment(i: number, segment: Segment, reader: LineReader): void {
    this.position = SealChecker.position(this.rangeIndex, reader.tailOffset);
    if (this.streaming !== undefined) {
      // Counted complete, yet the segment ended inside it (it shrank while being read): corrupt.
      throw corrupt(segment, reader.tailOffset, this.expectedSeq, `the log ends inside a batch (expected seq ${this.streaming})`);
    }
    if (i === this.segments.length - 1) this.uncommittedBytes = reader.tailBytes;
    else if (reader.tailBytes > 0) throw corrupt(segment, reader.tailOffset, this.expectedSeq, 'unterminated line before the end of the log');
  }

  /** The lines of one block read from the segment, handed over in runs. */
  private *blockRuns(i: number, segment: Segment, source: string | number, block: { bytes: Buffer; offset: number }): Generator<ScannedEvent[], void> {
    const bytes = block.bytes;
    const blockDigest = this.digests?.digest(bytes);
    // Bytes seal-checked line by line before: their seals hold (seal-digests.ts).
    const vouched = blockDigest !== undefined && this.digests!.has(blockDigest);
    if (!vouched && this.workerDue) this.startWorker(i, block.offset);
    const ascii = isAsciiBlock(bytes);
    let lineStart = 0;
    for (let nl = bytes.indexOf(NEWLINE, 0); nl >= 0; nl = bytes.indexOf(NEWLINE, lineStart)) {
      const lineOffset = block.offset + lineStart;
      const length = nl + 1 - lineStart;
      const text = lineText(bytes, lineStart, nl, ascii);
      const parsed = this.checkLine(segment, bytes, lineStart, nl, lineOffset, text, vouched);
      lineStart = nl + 1;
      const scanned: ScannedEvent = { event: parsed, line: this.withLines ? text : '', segment, offset: lineOffset, length };
      this.expectedSeq += 1;
      this.prevHash = parsed.hash;
      const batchEnd = parsed.batch_end;
      if (this.streaming !== undefined) {
        if (batchEnd !== this.streaming) throw corrupt(segment, lineOffset, parsed.seq, 'batch_end differs from the rest of its batch');
        this.run.push(scanned);
        if (this.run.length >= this.runLimit) yield this.handOver();
        if (batchEnd !== parsed.seq) continue;
        this.streaming = undefined;
      } else if (this.pending.length > 0 || (batchEnd !== undefined && batchEnd > parsed.seq)) {
        if (this.pending.length > 0 && this.pending[0]!.event.batch_end !== batchEnd) {
          throw corrupt(segment, lineOffset, parsed.seq, 'batch_end differs from the rest of its batch');
        }
        if (this.pending.length === 0 && linesFollow(source, bytes, block.offset, lineStart, batchEnd! - parsed.seq)) {
          this.streaming = batchEnd;
          this.run.push(scanned);
          continue;
        }
        this.pending.push(scanned);
        if (batchEnd !== parsed.seq) continue;
        for (const item of this.pending) this.run.push(item);
        this.pending = [];
      } else {
        this.run.push(scanned);
      }
      if (this.run.length >= this.runLimit) yield this.handOver();
      this.endSegment = segment;
      this.endOffset = lineOffset + length;
      this.endSeq = this.expectedSeq;
      this.endPrev = this.prevHash;
    }
    if (blockDigest !== undefined && !vouched) this.checkedBlocks.push(blockDigest);
  }

  /** The first block a long read must check itself: the seal worker starts there. */
  private startWorker(i: number, blockOffset: number): void {
    this.workerDue = false;
    // No line is waiting for a worker yet, so positions may be counted from here on.
    this.seals = SealChecker.start(
      this.segments.slice(i).map((s) => s.path),
      blockOffset,
      this.minBytes,
    );
    if (this.seals !== undefined) {
      this.workerBase = i;
      this.rangeIndex = 0;
    }
  }

  /** A line's envelope, its seq and prev, and its seal (here, or left to the worker); the parsed event. */
  private checkLine(segment: Segment, bytes: Buffer, lineStart: number, nl: number, lineOffset: number, text: string, vouched: boolean): StoredEvent {
    const expectedSeq = this.expectedSeq;
    const length = nl + 1 - lineStart;
    this.position = SealChecker.position(this.rangeIndex, lineOffset);
    const parsed = parseStoredLine(text);
    if (typeof parsed === 'string') throw corrupt(segment, lineOffset, expectedSeq, parsed);
    if (parsed.seq !== expectedSeq) throw corrupt(segment, lineOffset, expectedSeq, `seq ${parsed.seq} where ${expectedSeq} was expected`);
    if (this.prevHash !== undefined && parsed.prev !== this.prevHash)
      throw corrupt(segment, lineOffset, expectedSeq, 'prev does not match the previous event hash (chain broken)');
    // A vouched block's lines were checked when it was first read: the same bytes parse to the same hash.
    if (!vouched) {
      if (this.seals !== undefined && this.seals.covers(this.rangeIndex, lineOffset, length)) {
        // The worker hashes it; its shape against the parsed hash costs nothing here.
        if (!sealShapeHolds(bytes, lineStart, nl, parsed.hash)) throw corrupt(segment, lineOffset, expectedSeq, SealProblem.NOT_CANONICAL);
        this.unsettled.push({ path: segment.path, offset: lineOffset, length, hash: parsed.hash, position: this.position, segment, seq: expectedSeq });
      } else {
        const problem = sealProblem(bytes, lineStart, nl, parsed.hash);
        if (problem !== undefined) throw corrupt(segment, lineOffset, expectedSeq, problem);
      }
    }
    // The seal is checked before what follows: an error further down this line waits for it too.
    this.position += 1;
    return parsed;
  }

  /** The first line of `unsettled` with a broken seal, as a corrupt error; the sound lines before it stay in `run`. */
  private settleSeals(upTo: number): LogCorruptError | undefined {
    const seals = this.seals;
    if (seals === undefined || this.unsettled.length === 0) return undefined;
    let count = this.unsettled.length;
    while (count > 0 && this.unsettled[count - 1]!.position >= upTo) count--;
    const lines = count === this.unsettled.length ? this.unsettled : this.unsettled.slice(0, count);
    const verdict = seals.settle(lines);
    this.unsettled = count === this.unsettled.length ? [] : this.unsettled.slice(count);
    if (verdict.kind === 'sound') return undefined;
    const broken = lines[verdict.index]!;
    // The broken line may be in the run, held back in `pending`, or the line an error stopped at.
    const kept = this.run.findIndex((item) => item.segment === broken.segment && item.offset === broken.offset);
    if (kept >= 0) this.run = this.run.slice(0, kept);
    return corrupt(broken.segment, broken.offset, broken.seq, verdict.problem);
  }

  /** The run so far, once the worker vouched for its lines; the next run may be twice as long. */
  private handOver(): ScannedEvent[] {
    const broken = this.settleSeals(Number.POSITIVE_INFINITY);
    if (broken) throw broken;
    const out = this.run;
    this.run = [];
    if (this.runLimit < MAX_RUN) this.runLimit *= 2;
    return out;
  }
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
  for (let lineStart = 0; lineStart < length;) {
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
