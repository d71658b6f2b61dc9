import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';
import type { CommandContext } from './context.js';
import { OutputMode } from './output.js';
import { stderrSink } from './stdio.js';

/**
 * A progress line for long work (verify, replay, import, export, batched appends), on stderr only
 * and only for a person watching: stderr is a terminal, the output is human text (JSON mode and
 * pipes get none), and `--quiet` is not given. It appears once the work has run for a while
 * (`BATON_PROGRESS_AFTER_MS`, default 1000: a short command never flickers), repaints itself in
 * place, and is erased when the work ends, so what the command prints afterwards stands alone.
 *
 * Much of that work is synchronous (sealing a batch, folding chunks read with synchronous calls,
 * writing an export): the main thread's timers do not fire until it is done. So the line is painted
 * by a small painter thread, which reads the count the work sets (shared memory, one store per
 * `set`) on its own clock. The main thread paints only the first frame when there is no delay, and
 * the last one (the final count) before it erases the line.
 */
export interface Progress {
  /** The work's own count moved (events checked, written, read; bytes read). */
  set(done: number): void;
  /** The work moved on to another step: its label, and its total and unit when it counts. */
  phase(label: string, options?: ProgressOptions): void;
  /** Erase the line; nothing is painted after. */
  end(): void;
}

export interface ProgressOptions {
  total?: number;
  /** What is counted (`events`, `lines`); `bytes` is shown in kB or MB. Without it, only the time runs. */
  unit?: string;
}

const SILENT: Progress = { set: () => undefined, phase: () => undefined, end: () => undefined };
const REPAINT_MS = 200;
const ERASE = '\r\x1b[2K';

/** The painter's shared memory: four Int32 flags, then the count as a Float64 at byte 16. */
const STOP = 0;
const WRITING = 1;
const PAINTED = 2;
const SHARED_BYTES = 24;

/** What a frame shows, sent to the painter at the start and at each phase. */
interface Phase {
  label: string;
  total: number;
  unit: string;
}

/**
 * One frame of the line. The painter thread runs it too, from its source text: it must use
 * nothing but its arguments and the language's globals.
 */
export function progressFrame(label: string, done: number, total: number, unit: string, elapsedMs: number): string {
  const seconds = (elapsedMs / 1000).toFixed(1) + ' s';
  if (unit === '') return label + '… ' + seconds;
  const amount = (n: number): string => (unit !== 'bytes' ? n.toLocaleString('en-US') : n >= 1e6 ? (n / 1e6).toFixed(1) + ' MB' : (n / 1e3).toFixed(1) + ' kB');
  if (total <= 0) return label + ': ' + amount(done) + (unit === 'bytes' ? '' : ' ' + unit) + '… ' + seconds;
  const percent = Math.min(100, Math.floor((done / total) * 100));
  const of = unit === 'bytes' ? amount(done) + ' of ' + amount(total) : amount(done) + '/' + amount(total) + ' ' + unit;
  return label + ': ' + of + ' (' + percent + '%)… ' + seconds;
}

/**
 * The painter thread's program (CommonJS, evaluated): after the delay it paints a frame every
 * REPAINT_MS, unless the main thread has asked it to stop. WRITING brackets each write, so the main
 * thread, having set STOP, waits out a write in flight before it erases the line (both flags are
 * sequentially consistent: either the painter sees STOP, or the main thread sees WRITING).
 */
const PAINTER = `
const { workerData, parentPort } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const frame = ${progressFrame.toString()};
const flags = new Int32Array(workerData.shared, 0, 4);
const count = new Float64Array(workerData.shared, 16, 1);
let phase = workerData.phase;
parentPort.on('message', (next) => { phase = next; });
const paint = () => {
  Atomics.store(flags, ${WRITING}, 1);
  if (Atomics.load(flags, ${STOP}) === 0) {
    try {
      writeSync(2, ${JSON.stringify(ERASE)} + frame(phase.label, count[0], phase.total, phase.unit, Date.now() - workerData.started));
      Atomics.store(flags, ${PAINTED}, 1);
    } catch {}
  }
  Atomics.store(flags, ${WRITING}, 0);
  Atomics.notify(flags, ${WRITING});
};
setTimeout(() => { paint(); setInterval(paint, ${REPAINT_MS}); }, Math.max(0, workerData.started + workerData.after - Date.now()));
`;

export function startProgress(ctx: CommandContext, label: string, options: ProgressOptions = {}): Progress {
  if (!progressWanted(ctx)) return SILENT;
  const after = readDelay(ctx.env['BATON_PROGRESS_AFTER_MS']);
  const started = Date.now();
  const shared = new SharedArrayBuffer(SHARED_BYTES);
  const flags = new Int32Array(shared, 0, 4);
  const count = new Float64Array(shared, 16, 1);
  let phase = phaseOf(label, options);
  const frame = (): string => progressFrame(phase.label, count[0]!, phase.total, phase.unit, Date.now() - started);
  const stderr = stderrSink();
  if (after === 0) {
    stderr.write(ERASE + frame());
    Atomics.store(flags, PAINTED, 1);
  }
  const painter = startPainter({ shared, after, started, phase });
  let ended = false;
  return {
    set: (done) => {
      count[0] = done;
    },
    phase: (next, nextOptions = {}) => {
      if (ended) return;
      phase = phaseOf(next, nextOptions);
      count[0] = 0;
      painter?.postMessage(phase);
    },
    end: () => {
      if (ended) return;
      ended = true;
      Atomics.store(flags, STOP, 1);
      while (Atomics.load(flags, WRITING) === 1) Atomics.wait(flags, WRITING, 1, 50);
      void painter?.terminate();
      // The final count, then nothing: the line is erased as the command prints its result.
      if (Atomics.load(flags, PAINTED) === 1) stderr.write(ERASE + frame() + ERASE);
    },
  };
}

/** The painter thread, unref'd (the work keeps the process alive, not its line). A painter that cannot start costs the line, never the command. */
function startPainter(workerData: { shared: SharedArrayBuffer; after: number; started: number; phase: Phase }): Worker | undefined {
  try {
    const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
    const painter = new Worker(PAINTER, { eval: true, workerData });
    painter.unref();
    painter.on('error', () => undefined);
    return painter;
  } catch {
    return undefined;
  }
}

function phaseOf(label: string, options: ProgressOptions): Phase {
  return { label, total: options.total ?? 0, unit: options.unit ?? '' };
}

function progressWanted(ctx: CommandContext): boolean {
  if (ctx.flags.quiet || ctx.output.mode !== OutputMode.human) return false;
  const { isatty } = createRequire(import.meta.url)('node:tty') as typeof import('node:tty');
  return isatty(2);
}

function readDelay(value: string | undefined): number {
  return value !== undefined && /^\d{1,7}$/.test(value) ? Number(value) : 1000;
}
