import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { SealProblem, sealProblem } from './seal.js';
import {
  BAD_POSITION,
  CHECKED_TO,
  GENERATION,
  POSITION_SPAN,
  POSITIONS_OFFSET,
  SealState,
  SHARED_BYTES,
  STATE,
  type SealRange,
  type SealWorkerData,
} from './seal-protocol.js';
import { workerEntry } from './worker-script.js';

/**
 * Checking seals on a second core during a long read. The seal (a SHA-256 per line) is a
 * fifth of what reading a line costs on the main thread; it needs nothing the parse produces, so a
 * worker thread checks the same lines from the same files while the main thread parses and folds
 * them. The reader hands nothing over until the worker has vouched for it (`settle`), so what a read
 * yields, and the error it ends with, are exactly what checking every seal inline gives.
 *
 * Only the bytes present when the read began are the worker's (`covers`); lines appended during
 * the read are checked inline. Should the worker fail or stall, the reader checks the lines it has
 * not vouched for itself, from the file, and goes on without it.
 */
export const DEFAULT_SEAL_WORKER_MIN_BYTES = 16 * 1024 * 1024;

/** What the reader checks inline while the worker starts (while a worker starts, the reader does not wait for it). */
const HEAD_START_BYTES = 4 * 1024 * 1024;

/** No progress for this long: the worker is taken for dead (it cannot be asked while the reader waits). */
const STALL_MS = 10_000;
const WAIT_SLICE_MS = 100;

export interface CheckedLine {
  /** File and byte range of the line (its length includes the newline). */
  path: string;
  offset: number;
  length: number;
  /** The hash the parsed line holds. */
  hash: string;
  /** Its position (see seal-protocol.ts). */
  position: number;
}

export type SealVerdict = { kind: 'sound' } | { kind: 'broken'; index: number; problem: SealProblem };

const SOUND: SealVerdict = { kind: 'sound' };

export class SealChecker {
  private readonly control: Int32Array;
  private readonly positions: BigInt64Array;
  private active = true;
  /** Lines this thread checked from the file because the worker was gone (diagnostics; tests). */
  linesCheckedHere = 0;

  private constructor(
    private readonly worker: Worker,
    shared: SharedArrayBuffer,
    private readonly ranges: readonly SealRange[],
  ) {
    this.control = new Int32Array(shared, 0, 2);
    this.positions = new BigInt64Array(shared, POSITIONS_OFFSET, 2);
  }

  /**
   * A checker for a read of `paths` (in log order) from `offset` in the first, when at least
   * `minBytes` lie ahead and a worker can be started; otherwise undefined (check inline).
   */
  static start(paths: readonly string[], offset: number, minBytes: number): SealChecker | undefined {
    if (!Number.isFinite(minBytes) || paths.length === 0) return undefined;
    const ranges: SealRange[] = [];
    let total = 0;
    try {
      for (const path of paths) {
        const start = ranges.length === 0 ? offset : 0;
        const end = statSync(path).size;
        ranges.push({ path, start, end });
        total += Math.max(0, end - start);
      }
    } catch {
      return undefined;
    }
    if (total < minBytes) return undefined;
    // A worker takes tens of milliseconds to start: the reader checks the first lines itself
    // meanwhile, instead of waiting for it before it can hand over its first run.
    const first = ranges[0]!;
    try {
      first.start = lineStartFrom(first.path, first.start + HEAD_START_BYTES, first.end);
    } catch {
      return undefined;
    }
    const shared = new SharedArrayBuffer(SHARED_BYTES);
    const data: SealWorkerData = { ranges, shared };
    const entry = workerEntry('seal-worker');
    if (entry === undefined) return undefined;
    let worker: Worker;
    try {
      // Fetched only here: loading node:worker_threads would cost every short command.
      const { Worker: WorkerThread } = process.getBuiltinModule('node:worker_threads');
      worker = new WorkerThread(entry.script, { eval: entry.evaluate, workerData: data });
    } catch {
      return undefined;
    }
    // It must never keep the process alive (the reader waits on shared memory, not on the event
    // loop), and its failures are seen there too: it stops reporting progress.
    worker.unref();
    worker.on('error', () => undefined);
    return new SealChecker(worker, shared, ranges);
  }

  /** Whether the worker checks the line `[offset, offset + length)` of range `index`. */
  covers(index: number, offset: number, length: number): boolean {
    return this.active && index < this.ranges.length && offset >= this.ranges[index]!.start && offset + length <= this.ranges[index]!.end;
  }

  static position(index: number, offset: number): number {
    return index * POSITION_SPAN + offset;
  }

  /**
   * The verdict on `lines` (covered ones, in log order): the first with a broken seal, or sound.
   * Waits for the worker as far as the last of them; checks them itself when the worker is gone.
   */
  settle(lines: readonly CheckedLine[]): SealVerdict {
    if (lines.length === 0) return SOUND;
    const last = lines[lines.length - 1]!;
    const reached = this.waitFor(last.position + last.length);
    if (reached.kind === 'bad') {
      const index = lines.findIndex((line) => line.position === reached.position);
      // A bad line the reader did not ask about lies beyond these lines.
      return index < 0 ? SOUND : { kind: 'broken', index, problem: reached.problem };
    }
    if (reached.kind === 'reached') return SOUND;
    // The worker is gone: the lines it has not vouched for are checked here, from the file.
    this.close();
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.position + line.length <= reached.checkedTo) continue;
      this.linesCheckedHere += 1;
      const problem = checkFromFile(line);
      if (problem !== undefined) return { kind: 'broken', index: i, problem };
    }
    return SOUND;
  }

  private waitFor(position: number): { kind: 'reached' } | { kind: 'bad'; position: number; problem: SealProblem } | { kind: 'gone'; checkedTo: number } {
    let generation = Atomics.load(this.control, GENERATION);
    let since = Date.now();
    for (;;) {
      const state = Atomics.load(this.control, STATE);
      const checkedTo = Number(Atomics.load(this.positions, CHECKED_TO));
      if (checkedTo >= position || state === SealState.DONE) return { kind: 'reached' };
      if (state === SealState.BAD) {
        // The worker stopped at the bad line: everything before it is sound.
        return { kind: 'bad', position: Number(Atomics.load(this.positions, BAD_POSITION)), problem: SealProblem.TAMPERED };
      }
      if (state === SealState.FAILED || !this.active) return { kind: 'gone', checkedTo };
      Atomics.wait(this.control, GENERATION, generation, WAIT_SLICE_MS);
      const now = Atomics.load(this.control, GENERATION);
      if (now !== generation) {
        generation = now;
        since = Date.now();
      } else if (Date.now() - since > STALL_MS) {
        return { kind: 'gone', checkedTo };
      }
    }
  }

  /** Stop the worker (idempotent); lines are then checked inline. */
  close(): void {
    if (!this.active) return;
    this.active = false;
    void this.worker.terminate().catch(() => undefined);
  }
}

/** The start of the first line at or after `position` (`end` when none starts before it). */
function lineStartFrom(path: string, position: number, end: number): number {
  if (position >= end) return end;
  const fd = openSync(path, 'r');
  try {
    const window = Buffer.allocUnsafe(64 * 1024);
    // The line before `position` ends at the first newline at or after position - 1.
    for (let at = position - 1; at < end;) {
      const got = readSync(fd, window, 0, Math.min(window.length, end - at), at);
      if (got === 0) return end;
      const nl = window.subarray(0, got).indexOf(0x0a);
      if (nl >= 0) return Math.min(end, at + nl + 1);
      at += got;
    }
    return end;
  } finally {
    closeSync(fd);
  }
}

/** The seal of one line, read again from its file (the fallback when the worker is gone). */
function checkFromFile(line: CheckedLine): SealProblem | undefined {
  const fd = openSync(line.path, 'r');
  try {
    const bytes = Buffer.allocUnsafe(line.length);
    const got = readSync(fd, bytes, 0, line.length, line.offset);
    return sealProblem(bytes, 0, got - 1, line.hash);
  } finally {
    closeSync(fd);
  }
}
