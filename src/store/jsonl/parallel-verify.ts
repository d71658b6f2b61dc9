import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { EventCatalog } from '../../../events/catalog.js';
import { GENESIS_HASH } from '../../../events/patterns.js';
import type { VerifyReport } from '../contract.js';
import { NEWLINE } from './line-reader.js';
import type { Segment } from './segment-scan.js';
import type { RangeReport, VerifyRange } from './verify-range.js';
import type { FromWorker, ToWorker } from './verify-worker.js';
import { workerEntry } from './worker-script.js';

/**
 * verify() of a large log on worker threads. Checking a line needs nothing from the lines before
 * it but the previous event's seq and hash, so each segment is cut into byte ranges that start at
 * line starts; workers check ranges independently (verify-range.ts) and this coordinator checks
 * what they cannot — each range's link to the one before, segment names, unterminated lines —
 * walking the ranges in log order exactly as the serial verify walks lines. The first problem in
 * log order wins, so the report is the serial verify's, field for field.
 */

/** Ranges per worker over the whole log: a queue of several evens out ranges that check at different speeds. */
const RANGES_PER_WORKER = 4;
const MAX_WORKERS = 4;
/** How far to read at a time when looking for the line start after a cut. */
const SEEK_WINDOW = 64 * 1024;

export interface ParallelVerifyOptions {
  /** The smallest range a worker is given (a range costs a message and a file open). */
  minRangeBytes: number;
}

/** The report, or why the serial verify must decide instead. */
export type ParallelOutcome = { report: VerifyReport; workers: number; ranges: number } | { fallback: string };

export interface VerifyPlan {
  segments: readonly { segment: Segment; ranges: readonly VerifyRange[] }[];
  /** Every range, in log order (range.index is its position here). */
  ranges: readonly VerifyRange[];
}

export function workerCount(): number {
  return Math.max(2, Math.min(availableParallelism(), MAX_WORKERS));
}

export async function parallelVerify(segments: readonly Segment[], catalog: EventCatalog, options: ParallelVerifyOptions): Promise<ParallelOutcome> {
  // A worker cannot be handed the store's catalog object; it builds the built-in one, so any other
  // catalog (extra or custom event types) is verified serially.
  if (!catalog.builtIn) return { fallback: 'the catalog is not the built-in one, which is all a worker can load' };
  let pool: WorkerPool | undefined;
  try {
    const workers = workerCount();
    const plan = planRanges(segments, (sizes) => Math.max(options.minRangeBytes, Math.ceil(sum(sizes) / (RANGES_PER_WORKER * workers))));
    const started = Math.min(workers, plan.ranges.length);
    const workerPool = (pool = new WorkerPool(plan.ranges));
    workerPool.start(started);
    const report = await mergeRanges(plan, (range) => workerPool.report(range.index));
    return { report, workers: started, ranges: plan.ranges.length };
  } catch (error) {
    // A worker that cannot start or that dies (its file missing, a thread limit, out of memory)
    // says nothing about the log, and neither does any other failure here: the serial verify
    // checks the whole log again and its answer (or its error) is the one reported.
    return { fallback: `parallel verify failed: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    await pool?.close();
  }
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/**
 * Cut each segment into ranges of about `rangeBytes(sizes of all segments)` bytes, each starting
 * at a line start (the byte after the first newline at or after the cut), never crossing a segment.
 * Every segment gets at least one range, and each segment's last range reads to the end of the
 * file as it is when read (Infinity), as the serial verify does.
 */
export function planRanges(segments: readonly Segment[], rangeBytes: (sizes: readonly number[]) => number): VerifyPlan {
  const sizes = segments.map((segment) => statSync(segment.path).size);
  const target = Math.max(1, rangeBytes(sizes));
  const window = Buffer.allocUnsafe(SEEK_WINDOW);
  const ranges: VerifyRange[] = [];
  const planned = segments.map((segment, i) => {
    const size = sizes[i]!;
    const count = Math.max(1, Math.ceil(size / target));
    const starts = [0];
    if (count > 1) {
      const fd = openSync(segment.path, 'r');
      try {
        for (let k = 1; k < count; k++) {
          const start = lineStartAtOrAfter(fd, window, Math.round((k * size) / count), starts.at(-1)! + 1, size);
          if (start === undefined) break;
          starts.push(start);
        }
      } finally {
        closeSync(fd);
      }
    }
    const own = starts.map((start, k) => ({ index: ranges.length + k, path: segment.path, start, end: starts[k + 1] ?? Number.POSITIVE_INFINITY }));
    ranges.push(...own);
    return { segment, ranges: own };
  });
  return { segments: planned, ranges };
}

/**
 * The first line start at or after `cut` that is at least `min` (so ranges are never empty) and
 * before `size`; undefined when there is none (the rest of the segment is one range).
 */
function lineStartAtOrAfter(fd: number, window: Buffer, cut: number, min: number, size: number): number | undefined {
  // A line starts at `cut` when the byte before it is a newline: look from there.
  let at = Math.max(cut, min) - 1;
  while (at < size) {
    const got = readSync(fd, window, 0, Math.min(window.length, size - at), at);
    if (got === 0) return undefined;
    const nl = window.subarray(0, got).indexOf(NEWLINE);
    if (nl >= 0) return at + nl + 1 < size ? at + nl + 1 : undefined;
    at += got;
  }
  return undefined;
}

/**
 * The serial verify's report from the ranges' reports, walking them in log order: the same checks
 * in the same order (segment start, each range's link — its first line's seq then prev, after its
 * JSON and envelope, before its hash and data —, the range's own first problem, an unterminated
 * line before the last segment), the same positions, the same head_seq and checked. Reports of
 * ranges after the first problem are never awaited.
 */
export async function mergeRanges(plan: VerifyPlan, reportOf: (range: VerifyRange) => Promise<RangeReport> | RangeReport): Promise<VerifyReport> {
  let expected = 1;
  let prev = GENESIS_HASH;
  /** Sound lines at the end so far that are in a batch not yet ended (the serial verify's pendingBatch). */
  let pending = 0;
  const bad = (seq: number, offset: number, segment: string, reason: string, headSeq: number): VerifyReport => ({
    ok: false,
    head_seq: headSeq,
    checked: seq - 1,
    first_bad: { seq, offset, segment, reason },
  });
  for (let i = 0; i < plan.segments.length; i++) {
    const { segment, ranges } = plan.segments[i]!;
    if (segment.firstSeq !== expected) return bad(expected, 0, segment.name, `segment ${segment.name} should start at seq ${expected}`, expected - 1);
    let tail = { bytes: 0, offset: 0 };
    for (const range of ranges) {
      const report = await reportOf(range);
      if (report.first !== undefined) {
        if (report.first.seq !== expected)
          return bad(expected, range.start, segment.name, `seq ${report.first.seq} where ${expected} was expected`, expected - 1 - pending);
        if (report.first.prev !== prev)
          return bad(expected, range.start, segment.name, 'prev does not match the previous event hash (chain broken)', expected - 1 - pending);
      }
      pending = report.allPending ? pending + report.trailingPending : report.trailingPending;
      if (report.bad !== undefined) {
        const seq = expected + report.bad.linesBefore;
        return bad(seq, report.bad.offset, segment.name, report.bad.reason, seq - 1 - pending);
      }
      expected += report.lines;
      if (report.lastHash !== undefined) prev = report.lastHash;
      tail = { bytes: report.tailBytes, offset: report.tailOffset };
    }
    if (tail.bytes > 0 && i < plan.segments.length - 1)
      return bad(expected, tail.offset, segment.name, 'unterminated line before the end of the log', expected - 1);
  }
  // An unterminated last line or an unfinished last batch is a write in flight or torn by a
  // crash: not part of the log (as in the serial verify).
  return { ok: true, head_seq: expected - 1 - pending, checked: expected - 1 - pending, first_bad: null };
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: Error) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A range's report may never be awaited (the merge stopped before it): its failure is no unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/**
 * Worker threads fed ranges from a queue in log order, one range at a time each (a worker asks
 * for the next one by reporting). Any worker failure fails every report not yet in.
 */
class WorkerPool {
  private readonly workers: Worker[] = [];
  private readonly reports: Deferred<RangeReport>[];
  private next = 0;
  /** Ranges after one with a bad line cannot change the report: they are not sent. */
  private lastNeeded: number;
  private closing = false;

  constructor(private readonly ranges: readonly VerifyRange[]) {
    this.reports = ranges.map(() => deferred<RangeReport>());
    this.lastNeeded = ranges.length - 1;
  }

  /** Start `count` workers (each is in `workers` before the next is tried, so close() ends all that started). */
  start(count: number): void {
    const entry = workerEntry('verify-worker');
    if (entry === undefined) throw new Error('the verify worker module is missing');
    for (let i = 0; i < count; i++) {
      const worker = new Worker(entry.script, { eval: entry.evaluate });
      this.workers.push(worker);
      worker.on('message', (message: FromWorker) => this.received(worker, message));
      worker.on('error', (error) => this.fail(error));
      worker.on('messageerror', (error) => this.fail(error));
      worker.on('exit', (code) => {
        if (!this.closing) this.fail(new Error(`a verify worker exited early (code ${code})`));
      });
    }
  }

  report(index: number): Promise<RangeReport> {
    return this.reports[index]!.promise;
  }

  private received(worker: Worker, message: FromWorker): void {
    if (message.kind === 'report') {
      if (message.report.bad !== undefined) this.lastNeeded = Math.min(this.lastNeeded, message.index);
      this.reports[message.index]!.resolve(message.report);
    }
    if (this.next <= this.lastNeeded) {
      const range: ToWorker = this.ranges[this.next++]!;
      worker.postMessage(range);
    }
  }

  private fail(error: Error): void {
    for (const report of this.reports) report.reject(error);
  }

  /** Terminate every worker (also mid-range): nothing is left running and nothing keeps the process alive. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}
