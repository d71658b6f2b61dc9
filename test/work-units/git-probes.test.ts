import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { removeTempDirs } from '../helpers/workspace.js';
import { row, stateOf, WuWorkspace } from './helpers.js';

/**
 * Probes on a real git repository (work-units.md §5.2): a worktree created by git makes a claimed
 * WU active, its removal after a return makes it need a relaunch (its branch deleted too), a dirty
 * file under a WU's code paths contaminates it, and a LumenFlow stamp file makes a WU done — each
 * observation recorded once.
 */
afterAll(removeTempDirs);

it('git probes turn worktrees, dirty files and stamp files into the right states, recording each change once', async () => {
  const ws = await WuWorkspace.create();
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: ws.dir,
      stdio: 'pipe',
      env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
    });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(ws.dir, '.gitignore'), '.baton/\nworktrees/\n');
  git('add', '.gitignore');
  git('commit', '-q', '-m', 'one');
  await ws.wu(1, 'L1', ['--code-paths', 'src/one/**']);
  await ws.wu(2, 'L2', ['--code-paths', 'src/two']);
  await ws.wu(3, 'L3');
  await ws.ok(['wu', 'claim', 'WU-1']);
  await ws.ok(['wu', 'claim', 'WU-2']);
  git('worktree', 'add', '-q', '-b', 'lane/l1/wu-1', 'worktrees/l1-wu-1');
  git('worktree', 'add', '-q', '-b', 'lane/l2/wu-2', 'worktrees/l2-wu-2');

  let status = await ws.status();
  expect(stateOf(status, 'WU-1')).toBe('active');
  expect(row(status, 'WU-1').worktree_path).toBe('worktrees/l1-wu-1');
  const count = (type: string) => ws.events().filter((e) => e.type === type).length;
  expect(count('observation.worktree')).toBe(2);
  expect(count('observation.branch')).toBe(2);

  // WU-1 returns and its worktree and branch go away: it needs a relaunch.
  await ws.ok(['wu', 'return', 'WU-1']);
  git('worktree', 'remove', 'worktrees/l1-wu-1');
  git('branch', '-D', 'lane/l1/wu-1');
  // A stray edit under WU-2's code paths in the root checkout.
  mkdirSync(join(ws.dir, 'src', 'two'), { recursive: true });
  writeFileSync(join(ws.dir, 'src', 'two', 'x.ts'), 'export {};\n');
  // WU-3 was finished elsewhere: a LumenFlow stamp file.
  mkdirSync(join(ws.dir, '.lumenflow', 'stamps'), { recursive: true });
  writeFileSync(join(ws.dir, '.lumenflow', 'stamps', 'WU-3.done'), 'WU WU-3 — T3\nCompleted: 2026-04-16\n');

  status = await ws.status();
  expect(stateOf(status, 'WU-1')).toBe('needs_relaunch');
  expect(stateOf(status, 'WU-2')).toBe('contaminated');
  expect(row(status, 'WU-2').contamination_paths).toEqual(['src/two/x.ts']);
  expect(stateOf(status, 'WU-3')).toBe('done');
  const head = ws.headSeq();
  await ws.status();
  expect(ws.headSeq()).toBe(head);
  expect(count('observation.stamp_file')).toBe(1);
});
