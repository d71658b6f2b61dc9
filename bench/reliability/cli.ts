import { execFile } from 'node:child_process';
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

export function runCli(args: readonly string[], options: { env?: Record<string, string>; input?: string; cwd?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('BATON_')) env[key] = value;
  Object.assign(env, options.env ?? {});
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

/** A small seeded generator (mulberry32): a campaign is replayed exactly from its seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}
