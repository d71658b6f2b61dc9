import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../support.js';

/**
 * Running the built `baton` (dist/bin/baton.js) as a child process, as agents do, with no BATON_*
 * variable of the caller leaking in: the same way test/helpers/cli.ts runs it for the tests (that
 * helper is test-only and not compiled; this one ships with `npm run reliability`).
 */
export const BATON_BIN = join(PROJECT_ROOT, 'dist', 'bin', 'baton.js');

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Killed by the caller's timeout. */
  timedOut: boolean;
}

/** The caller's environment without its BATON_* variables, then `extra`. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('BATON_')) env[key] = value;
  return Object.assign(env, extra);
}

export function runCli(
  args: readonly string[],
  options: { env?: Record<string, string>; input?: string; cwd?: string; timeoutMs?: number } = {},
): Promise<CliRun> {
  const env = childEnv(options.env);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timeoutMs = options.timeoutMs ?? 30_000;
    const child = execFile(
      process.execPath,
      [BATON_BIN, ...args],
      { env, cwd: options.cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: timeoutMs, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number' && !error.signal) return reject(error);
        const signal = (error?.signal as NodeJS.Signals | undefined) ?? null;
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : null) : 0,
          signal,
          stdout,
          stderr,
          timedOut: signal === 'SIGKILL' && Date.now() - started >= timeoutMs - 50,
        });
      },
    );
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input ?? '');
  });
}

/** A `baton` child still running: its end, and a SIGKILL for it (a crash, at the caller's moment). */
export interface RunningCli {
  done: Promise<CliRun>;
  kill: () => void;
}

/**
 * Start `baton ARGS…` (the environment as `runCli` builds it, `input` on its stdin) and hand back the
 * means to kill it. Never rejects: a failure to start reads as exit 1.
 */
export function startCli(
  args: readonly string[],
  options: { input?: string; env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): RunningCli {
  const child = spawn(process.execPath, [BATON_BIN, ...args], { env: childEnv(options.env), cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let timedOut = false;
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (stdout += chunk));
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs ?? 30_000);
  const done = new Promise<CliRun>((resolve) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: 1, signal: null, stdout, stderr: stderr + error.message, timedOut: false });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
  // A child killed before it read its stdin closes the pipe under the write: not an error here.
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.input ?? '');
  return { done, kill: () => child.kill('SIGKILL') };
}

// The campaign's seeded generator is the benches' one (support.ts): a campaign is replayed exactly from its seed.
export { seeded } from '../support.js';

export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}
