import type { z } from 'zod';
import type { LazyCompiledSchema } from '../../events/compiled.js';
import { exitCodeFor } from '../errors.js';
import { checked, checkedCompiled } from '../app/envelopes/checked.js';
import { errorEnvelope } from '../app/error-envelope.js';
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

  /** Print an envelope: validated JSON in JSON mode, `human(envelope)` otherwise (src/app/envelopes/checked.ts). */
  emit<S extends z.ZodType>(schema: S, envelope: z.input<S>, human: (value: z.output<S>) => string, options: { toStderr?: boolean } = {}): void {
    this.print(checked(schema, envelope), human, options);
  }

  /**
   * `emit` with a compiled validator (events/compiled.ts): a valid envelope is printed without
   * loading zod; an invalid one loads the zod schema, so the error is `emit`'s, word for word.
   */
  async emitCompiled<T>(compiled: LazyCompiledSchema<T>, envelope: unknown, human: (value: T) => string, options: { toStderr?: boolean } = {}): Promise<void> {
    this.print(await checkedCompiled(compiled, envelope), human, options);
  }

  private print<T>(envelope: T, human: (value: T) => string, options: { toStderr?: boolean }): void {
    const stream = options.toStderr ? this.stderr : this.stdout;
    if (this.mode === OutputMode.json) stream.write(JSON.stringify(envelope) + '\n');
    else stream.write(human(envelope) + '\n');
  }

  /** Raw stored lines (log show/tail): JSONL in both modes, ready for `jq`. */
  line(text: string): void {
    this.stdout.write(text + '\n');
  }

  warn(message: string): void {
    this.stderr.write(`baton: warning: ${message}\n`);
  }

  /**
   * How this command names its positional arguments in an error (`{ message: 'message', wu: 'WU' }`);
   * any other domain field is named by its flag (`flagFor`).
   */
  private positional: Record<string, string> = {};

  nameArguments(names: Record<string, string>): void {
    this.positional = { ...this.positional, ...names };
  }

  /** A field (or a path into one, `dependencies.0` → `--deps.0`) by the name this command gives it, else by its flag. */
  private nameOf(field: string): string {
    const dot = field.indexOf('.');
    const head = dot < 0 ? field : field.slice(0, dot);
    if (!Object.hasOwn(this.positional, head)) return flagFor(field);
    return `${this.positional[head]!}${dot < 0 ? '' : field.slice(dot)}`;
  }

  /** The error envelope (JSON mode, on stdout; src/app/error-envelope.ts) or a one-line message (human mode, on stderr). */
  error(error: unknown, generatedAt: string | undefined): number {
    const envelope = errorEnvelope(error, generatedAt, (field) => this.nameOf(field));
    if (this.mode === OutputMode.json) this.stdout.write(JSON.stringify(envelope) + '\n');
    else this.stderr.write(`baton: ${envelope.code}: ${envelope.message}\n`);
    return exitCodeFor(envelope.code);
  }
}

/** The CLI's flag for a domain input field: `session_id` → `--session-id` (a name that is already a flag stays). */
export function flagFor(field: string): string {
  // Only a domain field (lower snake case) becomes a flag: a flag, a positional (`WU`, `INIT`) or a
  // variable (`BATON_SESSION`) already is the CLI's name.
  // A path into a field (`intent.0`, an entry of a list) keeps its tail: `--intent.0`.
  const dot = field.indexOf('.');
  const head = dot < 0 ? field : field.slice(0, dot);
  return /^[a-z][a-z0-9_]*$/.test(head) ? `--${head.replace(/_/g, '-')}${dot < 0 ? '' : field.slice(dot)}` : field;
}
