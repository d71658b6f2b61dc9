import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { expect } from 'vitest';
import { checkPrintedEnvelopes } from './envelope-schemas.js';
import { makeTempDir } from './workspace.js';

/**
 * Running the built `baton` binary as a real child process: `process.execPath dist/bin/baton.js …`,
 * with an environment stripped of every BATON_* variable of the test runner, so each test says
 * exactly which ones apply.
 */
export const BATON_BIN = fileURLToPath(new URL('../../dist/bin/baton.js', import.meta.url));

export interface CliResult {
  stdout: string;
  stderr: string;
  /** The exit code, or null when the process was ended by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunOptions {
  /** Extra environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed (stdin is always closed, so nothing waits on it). */
  input?: string | Buffer;
  cwd?: string;
  /** Run under this umask (through `sh -c 'umask …; exec node …'`). */
  umask?: string;
  timeoutMs?: number;
}

export function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('BATON_')) env[key] = value;
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

function command(args: readonly string[], umask: string | undefined): { file: string; argv: string[] } {
  if (umask === undefined) return { file: process.execPath, argv: [BATON_BIN, ...args] };
  if (!/^[0-7]{3,4}$/.test(umask)) throw new Error(`bad umask ${umask}`);
  return { file: '/bin/sh', argv: ['-c', `umask ${umask} && exec "$0" "$@"`, process.execPath, BATON_BIN, ...args] };
}

/** Run `baton ARGS…` to completion. Never rejects on a non-zero exit: the code is in the result. */
export function runBaton(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  const { file, argv } = command(args, options.umask);
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      argv,
      {
        env: childEnv(options.env),
        cwd: options.cwd,
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
        timeout: options.timeoutMs ?? 50_000,
        killSignal: 'SIGKILL',
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number' && !error.signal) return reject(error);
        // every envelope printed validates against its published JSON Schema.
        try {
          checkPrintedEnvelopes(stdout);
        } catch (problem) {
          return reject(problem as Error);
        }
        resolve({
          stdout,
          stderr,
          code: error ? (typeof error.code === 'number' ? error.code : null) : 0,
          signal: error?.signal ?? null,
        });
      },
    );
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input ?? '');
  });
}

/** `baton --dir DIR ARGS…`. */
export function batonIn(dir: string, args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  return runBaton(['--dir', dir, ...args], options);
}

/** Start a long-running `baton` (e.g. `log tail -f`); the caller ends it. */
export function startBaton(args: readonly string[], options: RunOptions = {}): ChildProcessWithoutNullStreams {
  const { file, argv } = command(args, options.umask);
  return spawn(file, argv, { env: childEnv(options.env), cwd: options.cwd, stdio: 'pipe' });
}

/** Every non-empty line of a JSONL text, parsed. */
export function jsonLines(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/** The error envelope of the architecture spec. */
export const ErrorEnvelope = z.strictObject({
  v: z.literal(1),
  type: z.literal('error'),
  code: z.string().min(1),
  message: z.string().min(1),
  generated_at: z.string(),
  '@timestamp': z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** The single error envelope a failed command printed on stdout (JSON mode). */
export function errorEnvelopeOf(result: CliResult): ErrorEnvelope {
  const lines = jsonLines(result.stdout);
  const last = lines.at(-1);
  return ErrorEnvelope.parse(last);
}

/** Run `tasks` with at most `limit` of them in flight. */
export async function inParallel<T>(limit: number, tasks: readonly (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/** The command was refused with `exit` and an error envelope of `code` whose message names `names`. */
export function expectRefused(r: CliResult, exit: number, code: string, names: string): void {
  expect(r.code, r.stdout + r.stderr).toBe(exit);
  const error = errorEnvelopeOf(r);
  expect(error.code).toBe(code);
  expect(error.message).toContain(names);
}

/**
 * A PATH with a `baton` first that runs the built binary: `setup` then writes the portable
 * `baton …` into the team's files, and a real shell runs what it (or a printed command) says.
 */
export function pathWithBaton(): string {
  const dir = makeTempDir('baton-path-');
  writeFileSync(join(dir, 'baton'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BATON_BIN)} "$@"\n`);
  chmodSync(join(dir, 'baton'), 0o755);
  return `${dir}${delimiter}${process.env['PATH'] ?? ''}`;
}
