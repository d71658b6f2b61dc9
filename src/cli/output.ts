import type { z } from 'zod';
import { INVALID, type LazyCompiledSchema } from '../../events/compiled.js';
import { BatonError, ErrorCode, exitCodeFor, isBatonError } from '../errors.js';
import { Refusal } from '../../deciders/refusal.js';
import { stderrSink, stdoutSink, type TextSink } from './stdio.js';

/**
 * How a command speaks: JSON envelopes (one per line) when `--json` is given or stdout is not a
 * TTY, human text otherwise; `--human` always wins. Every JSON envelope is validated against its
 * zod schema before it is printed, so a command can never emit a malformed envelope.
 */
export const OutputMode = { json: 'json', human: 'human' } as const;
export type OutputMode = (typeof OutputMode)[keyof typeof OutputMode];

/** `stdoutIsTTY` is asked only when the flags do not decide (it loads the tty module). */
export function chooseMode(flags: { json?: boolean; human?: boolean }, stdoutIsTTY: boolean | (() => boolean)): OutputMode {
  if (flags.human) return OutputMode.human;
  if (flags.json) return OutputMode.json;
  const tty = typeof stdoutIsTTY === 'function' ? stdoutIsTTY() : stdoutIsTTY;
  return tty ? OutputMode.human : OutputMode.json;
}

export class Output {
  constructor(
    readonly mode: OutputMode,
    private readonly stdout: TextSink = stdoutSink(),
    private readonly stderr: TextSink = stderrSink(),
  ) {}

  /** Print an envelope: validated JSON in JSON mode, `human(envelope)` otherwise. */
  emit<S extends z.ZodType>(schema: S, envelope: z.input<S>, human: (value: z.output<S>) => string, options: { toStderr?: boolean } = {}): void {
    const parsed = schema.safeParse(envelope);
    if (!parsed.success) {
      throw new BatonError(ErrorCode.UNEXPECTED, `internal: the ${String((envelope as { type?: unknown }).type)} envelope failed its schema: ${parsed.error.message}`);
    }
    const stream = options.toStderr ? this.stderr : this.stdout;
    if (this.mode === OutputMode.json) stream.write(JSON.stringify(parsed.data) + '\n');
    else stream.write(human(parsed.data) + '\n');
  }

  /**
   * `emit` with a compiled validator (events/compiled.ts): a valid envelope is printed without
   * loading zod; an invalid one loads the zod schema, so the error is `emit`'s, word for word.
   */
  async emitCompiled<T>(compiled: LazyCompiledSchema<T>, envelope: unknown, human: (value: T) => string, options: { toStderr?: boolean } = {}): Promise<void> {
    const parsed = compiled.parse(envelope);
    if (parsed === INVALID) return this.emit(await compiled.schema(), envelope, human, options);
    const stream = options.toStderr ? this.stderr : this.stdout;
    if (this.mode === OutputMode.json) stream.write(JSON.stringify(parsed) + '\n');
    else stream.write(human(parsed) + '\n');
  }

  /** Raw stored lines (log show/tail): JSONL in both modes, ready for `jq`. */
  line(text: string): void {
    this.stdout.write(text + '\n');
  }

  warn(message: string): void {
    this.stderr.write(`baton: warning: ${message}\n`);
  }

  /** The error envelope (JSON mode, on stdout) or a one-line message (human mode, on stderr). */
  /**
   * Every error envelope has `generated_at`, and `@timestamp` (the same ISO time: the orchestration
   * wizard's error field, which tasks.md keeps for parity). Without the command's clock (commander
   * rejected the arguments, or BATON_NOW itself is bad) the time is BATON_NOW when it parses, else now.
   */
  error(error: unknown, generatedAt: string | undefined): number {
    const { code, message, details } = describeError(error);
    if (this.mode === OutputMode.json) {
      const at = generatedAt ?? errorClock();
      const envelope = { v: 1, type: 'error', generated_at: at, '@timestamp': at, code, message, ...(details ? { details } : {}) };
      this.stdout.write(JSON.stringify(envelope) + '\n');
    } else {
      this.stderr.write(`baton: ${code}: ${message}\n`);
    }
    return exitCodeFor(code);
  }
}

/** The CLI's flag for a domain input field: `session_id` → `--session-id` (a name that is already a flag stays). */
export function flagFor(field: string): string {
  return field.startsWith('-') ? field : `--${field.replace(/_/g, '-')}`;
}

function describeError(error: unknown): { code: string; message: string; details: Record<string, unknown> | undefined } {
  // A pure Refusal (deciders/, projections/) that reached the CLI unconverted says the same.
  if (isBatonError(error) || error instanceof Refusal) {
    // An input named by its domain field is named here by its flag (`root_task` → `--root-task`).
    if (error.input !== undefined) {
      const flag = flagFor(error.input.field);
      return { code: error.code, message: error.input.say(flag), details: { ...error.details, field: flag } };
    }
    return { code: error.code, message: error.message, details: error.details };
  }
  const err = error as NodeJS.ErrnoException;
  if (err && (err.code === 'EACCES' || err.code === 'EPERM' || err.code === 'EROFS' || err.code === 'ENOSPC')) {
    return { code: ErrorCode.STORE_UNAVAILABLE, message: `${err.message}; nothing was written`, details: undefined };
  }
  return { code: ErrorCode.UNEXPECTED, message: err instanceof Error ? err.message : String(error), details: undefined };
}

function errorClock(): string {
  const fixed = process.env['BATON_NOW'];
  const parsed = fixed ? Date.parse(fixed) : Number.NaN;
  return new Date(Number.isNaN(parsed) ? Date.now() : parsed).toISOString();
}
