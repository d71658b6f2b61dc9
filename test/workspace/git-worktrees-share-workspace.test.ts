import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveWorkspace } from '../../src/workspace.js';
import { jsonLines, runBaton, type CliResult } from '../helpers/cli.js';
import { makeTempDir, removeTempDirs, storedEvents } from '../helpers/workspace.js';

/**
 * Without --dir / BATON_DIR, every linked worktree of a repository resolves to
 * the main working tree's `.baton/` (found by reading `.git` files, as `git rev-parse
 * --git-common-dir` would), so agents in `git worktree add …` folders share one store.
 */
afterAll(removeTempDirs);

const NOW = '2026-04-17T10:00:00Z';
const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: 'pipe', env: gitEnv });

/** What git itself says the main working tree is: the parent of a `.git` common dir, else the top level. */
function gitSaysMainWorkingTree(dir: string): string | null {
  const common = spawnSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: dir, encoding: 'utf8', env: gitEnv });
  if (common.status !== 0) return null;
  const commonDir = common.stdout.trim();
  if (commonDir.endsWith('/.git')) return dirname(commonDir);
  const top = spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd: dir, encoding: 'utf8', env: gitEnv });
  return top.status === 0 ? top.stdout.trim() : null;
}

/**
 * `baton ARGS…` run from `cwd` with no --dir and no BATON_DIR (childEnv strips every BATON_*), as one
 * agent identity (a claim needs a holder), the one agent that moves between the worktrees.
 */
async function at(cwd: string, args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runBaton(['--json', ...args], { cwd, env: { BATON_NOW: NOW, BATON_AGENT_IDENTITY: 'agent:worktrees', ...env } });
}

async function ok(cwd: string, args: readonly string[]): Promise<Record<string, unknown>> {
  const r = await at(cwd, args);
  expect(r.code, `${args.join(' ')} in ${cwd}: ${r.stdout}${r.stderr}`).toBe(0);
  return jsonLines(r.stdout).at(-1) as Record<string, unknown>;
}

describe('one workspace per repository, whatever the worktree', () => {
  let root: string;
  let trees: string[];

  beforeAll(() => {
    // realpath: the temp folder may sit behind a link (git reports resolved paths).
    const base = realpathSync(makeTempDir('baton-worktrees-'));
    root = join(base, 'repo');
    mkdirSync(root);
    git(root, 'init', '-q', '-b', 'main');
    writeFileSync(join(root, 'README.md'), 'hello\n');
    git(root, 'add', 'README.md');
    git(root, 'commit', '-q', '-m', 'one');
    // Two linked worktrees beside the repository, one inside it (LumenFlow's `worktrees/…` layout).
    trees = [join(base, 'wt-a'), join(base, 'wt-b'), join(root, 'worktrees', 'lane-c-wu-1')];
    trees.forEach((tree, i) => git(root, 'worktree', 'add', '-q', '-b', `lane/${i}`, tree));
    mkdirSync(join(trees[0]!, 'src', 'deep'), { recursive: true });
  });

  it('resolves every folder of every worktree to the main working tree, as git does', () => {
    const plain = realpathSync(makeTempDir('baton-plain-'));
    const bare = realpathSync(makeTempDir('baton-bare-'));
    git(bare, 'init', '-q', '--bare', '-b', 'main');
    git(root, 'push', '-q', bare, 'main');
    const bareTree = join(realpathSync(makeTempDir('baton-bare-wt-')), 'tree');
    git(bare, 'worktree', 'add', '-q', bareTree, 'main');
    // A gitfile with a relative path (git accepts one; `worktree.useRelativePaths` writes them).
    const relativeTree = join(dirname(root), 'wt-rel');
    git(root, 'worktree', 'add', '-q', '-b', 'rel', relativeTree);
    const gitdir = git(relativeTree, 'rev-parse', '--absolute-git-dir').trim();
    writeFileSync(join(relativeTree, '.git'), `gitdir: ${relative(relativeTree, gitdir)}\n`);

    for (const dir of [root, join(root, 'worktrees'), ...trees, join(trees[0]!, 'src', 'deep'), relativeTree]) {
      expect(gitSaysMainWorkingTree(dir), dir).toBe(root);
      expect(resolveWorkspace(undefined, dir), dir).toBe(root);
    }
    // A bare repository's worktree has no main working tree: it is its own workspace.
    expect(resolveWorkspace(undefined, bareTree)).toBe(bareTree);
    expect(gitSaysMainWorkingTree(bareTree)).toBe(bareTree);
    // Outside git: the current folder, as before; an explicit --dir always wins.
    expect(resolveWorkspace(undefined, plain)).toBe(plain);
    expect(resolveWorkspace(trees[1]!, plain)).toBe(trees[1]);
    git(root, 'worktree', 'remove', '--force', relativeTree);
  });

  it('a WU created at the root is claimed in one worktree, checkpointed in another, finished in a third and seen done from the root', async () => {
    await ok(root, ['initiative', 'create', 'INIT-1', '--title', 'One', '--lanes', 'L1']);
    await ok(root, ['wu', 'create', 'WU-1', '--initiative', 'INIT-1', '--lane', 'L1', '--title', 'Shared']);

    const claim = await ok(trees[0]!, ['wu', 'claim', 'WU-1', '--worktree', trees[2]!]);
    expect(claim['yaml_status']).toBe('in_progress');
    const checkpoint = await ok(trees[1]!, ['wu', 'checkpoint', 'WU-1', '--note', 'half way']);
    expect(checkpoint['appended']).toEqual([expect.objectContaining({ type: 'wu.checkpointed' })]);

    // The worktree probe, run from a worktree, sees the claimed worktree (paths are the root's).
    const midway = await ok(trees[1]!, ['orchestrate', 'status', 'INIT-1']);
    expect(midway['wus']).toEqual([expect.objectContaining({ wu_id: 'WU-1', orchestration_state: 'active' })]);

    await ok(trees[2]!, ['wu', 'done', 'WU-1']);
    const status = await ok(root, ['orchestrate', 'status', 'INIT-1']);
    expect(status['wus']).toEqual([expect.objectContaining({ wu_id: 'WU-1', orchestration_state: 'done' })]);

    // One store, at the root; no worktree grew its own.
    const types = storedEvents(root).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['initiative.created', 'wu.defined', 'wu.claimed', 'wu.checkpointed', 'observation.worktree', 'wu.stamped']));
    for (const tree of trees.slice(0, 2)) expect(spawnSync('test', ['-e', join(tree, '.baton')]).status).toBe(1);

    // The human status names the store it reads: the root's, from inside a worktree.
    const human = await runBaton(['--human', 'status'], { cwd: join(trees[0]!, 'src', 'deep'), env: { BATON_NOW: NOW } });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`Store: ${join(root, '.baton', 'log')}`);
  });

  it("dirty paths are the root checkout's, whichever worktree runs the probe", async () => {
    await ok(root, ['wu', 'create', 'WU-2', '--initiative', 'INIT-1', '--lane', 'L1', '--code-paths', 'src/two/**']);
    await ok(trees[0]!, ['wu', 'claim', 'WU-2', '--worktree', trees[0]!]);
    // A change inside the WU's own worktree is its work, not contamination.
    mkdirSync(join(trees[0]!, 'src', 'two'), { recursive: true });
    writeFileSync(join(trees[0]!, 'src', 'two', 'work.ts'), 'export {};\n');
    const clean = await ok(trees[1]!, ['orchestrate', 'status', 'INIT-1']);
    expect(clean['wus']).toContainEqual(expect.objectContaining({ wu_id: 'WU-2', orchestration_state: 'active' }));
    // The same path dirty in the root checkout is.
    mkdirSync(join(root, 'src', 'two'), { recursive: true });
    writeFileSync(join(root, 'src', 'two', 'stray.ts'), 'export {};\n');
    const dirty = await ok(trees[1]!, ['orchestrate', 'status', 'INIT-1']);
    expect(dirty['wus']).toContainEqual(
      expect.objectContaining({ wu_id: 'WU-2', orchestration_state: 'contaminated', contamination_paths: ['src/two/stray.ts'] }),
    );
  });

  it('four processes, the root and three worktrees, appending at once lose nothing', async () => {
    const before = storedEvents(root).length;
    const perProcess = 30;
    const places = [root, ...trees];
    const results = await Promise.all(
      places.map((cwd, p) => {
        const lines = Array.from({ length: perProcess }, (_, i) =>
          JSON.stringify({ type: 'note.recorded', stream: `note/p${p}`, data: { text: `process ${p} event ${i}` } }),
        );
        // One append per line (not one batch), so the four processes interleave under the lock.
        return runBaton(['--json', 'log', 'append', '--events', '-'], { cwd, env: { BATON_NOW: NOW }, input: `${lines.join('\n')}\n` });
      }),
    );
    for (const r of results) expect(r.code, r.stdout + r.stderr).toBe(0);
    const events = storedEvents(root);
    expect(events.length).toBe(before + places.length * perProcess);
    for (let p = 0; p < places.length; p++) {
      const texts = events.filter((e) => e.stream === `note/p${p}`).map((e) => (e.data as { text: string }).text);
      expect(texts).toEqual(Array.from({ length: perProcess }, (_, i) => `process ${p} event ${i}`));
    }
    const verify = await ok(trees[2]!, ['log', 'verify']);
    expect(verify).toMatchObject({ ok: true, head_seq: events.length, checked: events.length });
  });
});
