import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gitTopLevel, mayBeInGitRepository } from '../../src/probes/git.js';
import { makeTempDir, removeTempDirs } from '../helpers/workspace.js';

/**
 * The probes skip `git rev-parse` where git could find no repository (src/probes/git.ts): whenever
 * the quick look says "none", git says so too, and gitTopLevel answers what git answers.
 */
afterAll(removeTempDirs);

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const git = (cwd: string, ...args: string[]): void => void execFileSync('git', args, { cwd, stdio: 'pipe', env: gitEnv });

/** What git itself says: the top level, or null. */
function gitSays(dir: string): string | null {
  const r = spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd: dir, encoding: 'utf8', env: process.env });
  return r.status === 0 ? r.stdout.trim() : null;
}

describe('git repository discovery', () => {
  it('agrees with git in plain folders, repositories, their subfolders, worktrees and bare repositories', () => {
    const plain = makeTempDir('plain');
    mkdirSync(join(plain, 'a', 'b'), { recursive: true });
    const repo = makeTempDir('repo');
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'one');
    mkdirSync(join(repo, 'src', 'deep'), { recursive: true });
    git(repo, 'worktree', 'add', '-q', '-b', 'side', join(repo, 'wt'));
    const bare = makeTempDir('bare');
    git(bare, 'init', '-q', '--bare');
    const dirs = [
      plain,
      join(plain, 'a', 'b'),
      repo,
      join(repo, 'src', 'deep'),
      join(repo, 'wt'),
      join(repo, '.git'),
      join(repo, '.git', 'refs'),
      bare,
      join(bare, 'refs'),
    ];
    for (const dir of dirs) {
      const truth = gitSays(dir);
      if (!mayBeInGitRepository(dir)) expect(truth, dir).toBeNull();
      expect(gitTopLevel(dir), dir).toBe(truth);
    }
    expect(mayBeInGitRepository(plain)).toBe(false);
    expect(mayBeInGitRepository(join(repo, 'src', 'deep'))).toBe(true);
    expect(mayBeInGitRepository(join(repo, 'wt'))).toBe(true);
    expect(mayBeInGitRepository(bare)).toBe(true);
  });

  it('leaves it to git when the environment points it at a repository', () => {
    const plain = makeTempDir('plain-env');
    expect(mayBeInGitRepository(plain, { GIT_DIR: '/somewhere/.git' })).toBe(true);
    expect(mayBeInGitRepository(plain, { GIT_WORK_TREE: plain })).toBe(true);
    expect(mayBeInGitRepository(plain, {})).toBe(false);
  });
});
