import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

/** git, run with an argument array (never a shell) in a folder; null when git is missing or fails to start. */
export interface GitResult {
  status: number;
  stdout: string;
}

/**
 * node:child_process is required when git is first run, not when this module loads: `orchestrate
 * status` imports the probes, and outside a git repository (mayBeInGitRepository) it runs none,
 * while loading child_process (with net, dgram and the streams) costs a short command milliseconds.
 */
let childProcess: typeof import('node:child_process') | undefined;

export function runGit(cwd: string, args: readonly string[]): GitResult | null {
  childProcess ??= createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
  const result = childProcess.spawnSync('git', args as string[], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' },
  });
  if (result.error !== undefined || result.status === null) return null;
  return { status: result.status, stdout: result.stdout };
}

/**
 * Whether git could find a repository around `dir` at all: git's discovery looks for a `.git`
 * entry (a folder, or the file of a worktree or submodule) in `dir` and each parent, or for a bare
 * repository (`HEAD` next to `objects/` and `refs/`); GIT_DIR and friends point it elsewhere.
 * When none of these is there, `git rev-parse` can only answer "not a git repository": it is not
 * run, and a command in a plain folder saves spawning a process.
 */
export function mayBeInGitRepository(dir: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env['GIT_DIR'] !== undefined || env['GIT_WORK_TREE'] !== undefined || env['GIT_COMMON_DIR'] !== undefined) return true;
  for (let current = resolve(dir); ; current = dirname(current)) {
    if (existsSync(join(current, '.git'))) return true;
    if (existsSync(join(current, 'HEAD')) && existsSync(join(current, 'objects')) && existsSync(join(current, 'refs'))) return true;
    if (dirname(current) === current) return false;
  }
}

/** The top level of the git repository around `dir`, or null when it is not inside one. */
export function gitTopLevel(dir: string): string | null {
  if (!mayBeInGitRepository(dir)) return null;
  const r = runGit(dir, ['rev-parse', '--show-toplevel']);
  return r !== null && r.status === 0 ? r.stdout.trim() : null;
}
