import { createRequire } from 'node:module';
import type { CommandContext } from './context.js';
import { OutputMode } from './output.js';
import { stderrSink } from './stdio.js';

/**
 * A progress line for long work (verify, replay, import, export, batched appends), on stderr only
 * and only for a person watching: stderr is a terminal, the output is human text (JSON mode and
 * pipes get none), and `--quiet` is not given. It appears once the work has run for a while
 * (`BATON_PROGRESS_AFTER_MS`, default 1000: a short command never flickers), repaints itself in
 * place, and is erased when the work ends, so what the command prints afterwards stands alone.
 */
export interface Progress {
  /** The work's own count moved (events checked, written, read). */
  set(done: number): void;
  /** Erase the line; nothing is painted after. */
  end(): void;
}

const SILENT: Progress = { set: () => undefined, end: () => undefined };
const REPAINT_MS = 200;

export function startProgress(ctx: CommandContext, label: string, options: { total?: number; unit?: string } = {}): Progress {
  if (!progressWanted(ctx)) return SILENT;
  const after = readDelay(ctx.env['BATON_PROGRESS_AFTER_MS']);
  const stderr = stderrSink();
  const started = Date.now();
  let done = 0;
  let painted = false;
  let ended = false;
  const paint = (): void => {
    if (ended) return;
    painted = true;
    stderr.write(`\r\x1b[2K${describe(label, done, options, Date.now() - started)}`);
  };
  let timer: NodeJS.Timeout | undefined;
  const begin = (): void => {
    paint();
    timer = setInterval(paint, REPAINT_MS);
    timer.unref();
  };
  const delay = after === 0 ? undefined : setTimeout(begin, after);
  delay?.unref();
  if (after === 0) begin();
  return {
    set: (value) => {
      done = value;
    },
    end: () => {
      if (ended) return;
      ended = true;
      if (delay) clearTimeout(delay);
      if (timer) clearInterval(timer);
      if (painted) stderr.write('\r\x1b[2K');
    },
  };
}

function describe(label: string, done: number, options: { total?: number; unit?: string }, elapsedMs: number): string {
  const seconds = `${(elapsedMs / 1000).toFixed(1)} s`;
  if (options.unit === undefined) return `${label}… ${seconds}`;
  const count = done.toLocaleString('en-US');
  if (options.total === undefined || options.total <= 0) return `${label}: ${count} ${options.unit}… ${seconds}`;
  const percent = Math.min(100, Math.floor((done / options.total) * 100));
  return `${label}: ${count}/${options.total.toLocaleString('en-US')} ${options.unit} (${percent}%)… ${seconds}`;
}

function progressWanted(ctx: CommandContext): boolean {
  if (ctx.flags.quiet || ctx.output.mode !== OutputMode.human) return false;
  const { isatty } = createRequire(import.meta.url)('node:tty') as typeof import('node:tty');
  return isatty(2);
}

function readDelay(value: string | undefined): number {
  return value !== undefined && /^\d{1,7}$/.test(value) ? Number(value) : 1000;
}
