import { spawnSync } from 'node:child_process';

/** git, run with an argument array (never a shell) in a folder; null when git is missing or fails to start. */
export interface GitResult {
  status: number;
  stdout: string;
}

export function runGit(cwd: string, args: readonly string[]): GitResult | null {
  const result = spawnSync('git', args as string[], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } });
  if (result.error !== undefined || result.status === null) return null;
  return { status: result.status, stdout: result.stdout };
}

/** The top level of the git repository around `dir`, or null when it is not inside one. */
export function gitTopLevel(dir: string): string | null {
  const r = runGit(dir, ['rev-parse', '--show-toplevel']);
  return r !== null && r.status === 0 ? r.stdout.trim() : null;
}
