import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BATON_BIN, expectRefused, jsonLines, runBaton, type CliResult } from '../helpers/cli.js';
import { T0, workspace } from '../helpers/coordination.js';
import { makeTempDir, removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

/**
 * `baton setup claude-code` writes the team's files (`.claude/settings.json`, `.mcp.json`,
 * `CLAUDE.md`) with a portable command, never a path of the machine that ran it; what is this
 * machine's goes to `.claude/settings.local.json` (`--local`); and run in a linked git worktree it
 * leaves the worktree working.
 */

interface McpJson {
  mcpServers: Record<string, { command: string; args: string[] }>;
}
interface Settings {
  hooks: Record<string, { hooks: { command: string }[] }[]>;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

/** A folder holding an executable `baton`, to put on PATH. */
function fakeBatonDir(): string {
  const dir = makeTempDir('baton-path-');
  writeFileSync(join(dir, 'baton'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(dir, 'baton'), 0o755);
  return dir;
}

/** PATH without any `baton` on it (git and sh stay reachable). */
const NO_BATON_PATH = ['/usr/local/bin', '/usr/bin', '/bin'].filter((d) => !existsSync(join(d, 'baton'))).join(delimiter);
const withBaton = () => `${fakeBatonDir()}${delimiter}${NO_BATON_PATH}`;

/** `baton --json ARGS` in `cwd`, with no --dir: the workspace is found from the folder, as a user runs it. */
async function setupIn(cwd: string, args: readonly string[], path: string): Promise<CliResult & { json: Record<string, unknown> }> {
  const run = await runBaton(['--json', ...args], { cwd, env: { BATON_NOW: T0, PATH: path } });
  return { ...run, json: (jsonLines(run.stdout).at(-1) ?? {}) as Record<string, unknown> };
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });

/** A git repository with one commit, and a linked worktree of it beside it. */
function repoWithWorktree(): { main: string; worktree: string } {
  const root = makeTempDir('baton-wt-');
  const main = join(root, 'main');
  mkdirSync(main);
  git(main, 'init', '-q');
  writeFileSync(join(main, 'README.md'), '# shop\n');
  git(main, 'add', 'README.md');
  git(main, 'commit', '-q', '-m', 'init');
  git(main, 'worktree', 'add', '-q', join(root, 'wt'));
  return { main, worktree: join(root, 'wt') };
}

const SHARED = ['.claude/settings.json', '.mcp.json', 'CLAUDE.md'];

describe('baton setup claude-code: portable commands in the files a team shares', () => {
  it('baton on PATH: every hook, the MCP server and CLAUDE.md call `baton`, no absolute node or script', async () => {
    const ws = await workspace();
    const run = await setupIn(ws.dir, ['setup', 'claude-code'], withBaton());
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ type: 'client_setup', changed: true, files: SHARED, warnings: [] });
    const settings = readJson<Settings>(join(ws.dir, '.claude', 'settings.json'));
    for (const [event, entries] of Object.entries(settings.hooks)) expect(entries.at(-1)!.hooks[0]!.command).toBe(`baton hook claude-code ${event}`);
    expect(readJson<McpJson>(join(ws.dir, '.mcp.json'))).toEqual({ mcpServers: { baton: { command: 'baton', args: ['mcp', '--client', 'claude-code'] } } });
    for (const file of SHARED) {
      const text = readFileSync(join(ws.dir, file), 'utf8');
      expect(text, file).not.toContain(process.execPath);
      expect(text, file).not.toContain(BATON_BIN);
      expect(text, file).not.toContain(ws.dir);
    }
    expect(readFileSync(join(ws.dir, 'CLAUDE.md'), 'utf8')).toContain('baton wu checkpoint');
    expect(ws.head()).toBe(0);
  });

  it('baton not on PATH: npx of baton-state, and a warning that says how to use this machine’s baton instead', async () => {
    const ws = await workspace();
    const run = await setupIn(ws.dir, ['setup', 'claude-code'], NO_BATON_PATH);
    expect(run.code).toBe(0);
    const npx = 'npx --yes --package baton-state baton';
    const settings = readJson<Settings>(join(ws.dir, '.claude', 'settings.json'));
    expect(settings.hooks['Stop']!.at(-1)!.hooks[0]!.command).toBe(`${npx} hook claude-code Stop`);
    expect(readJson<McpJson>(join(ws.dir, '.mcp.json')).mcpServers['baton']).toEqual({
      command: 'npx',
      args: ['--yes', '--package', 'baton-state', 'baton', 'mcp', '--client', 'claude-code'],
    });
    expect(readFileSync(join(ws.dir, 'CLAUDE.md'), 'utf8')).toContain(`\`${npx}\``);
    expect(String((run.json['warnings'] as string[])[0])).toContain('--local');
    for (const file of SHARED) expect(readFileSync(join(ws.dir, file), 'utf8')).not.toContain(BATON_BIN);
  });

  it('.mcp.json: merged with the servers already there, byte-identical on a second run; a bad mcpServers or a link refuses', async () => {
    const ws = await workspace();
    const docs = { command: 'npx', args: ['-y', 'docs-mcp'], env: { TOKEN: '${DOCS_TOKEN}' } };
    writeFileSync(join(ws.dir, '.mcp.json'), JSON.stringify({ mcpServers: { docs } }));
    const path = withBaton();
    expect((await setupIn(ws.dir, ['setup', 'claude-code'], path)).code).toBe(0);
    const bytes = readFileSync(join(ws.dir, '.mcp.json'));
    const config = JSON.parse(bytes.toString('utf8')) as McpJson;
    expect(Object.keys(config.mcpServers)).toEqual(['docs', 'baton']);
    expect(config.mcpServers['docs']).toEqual(docs);
    const again = await setupIn(ws.dir, ['setup', 'claude-code'], path);
    expect(again.json).toMatchObject({ changed: false });
    expect(readFileSync(join(ws.dir, '.mcp.json')).equals(bytes)).toBe(true);

    writeFileSync(join(ws.dir, '.mcp.json'), '{"mcpServers": []}');
    const bad = await setupIn(ws.dir, ['setup', 'claude-code'], path);
    expectRefused(bad, 2, 'INVALID_INPUT', '.mcp.json');
    expect(readFileSync(join(ws.dir, '.mcp.json'), 'utf8')).toBe('{"mcpServers": []}');

    const linked = await workspace();
    const outside = join(makeTempDir('baton-outside-'), 'mcp.json');
    writeFileSync(outside, '{}');
    symlinkSync(outside, join(linked.dir, '.mcp.json'));
    expectRefused(await setupIn(linked.dir, ['setup', 'claude-code'], path), 3, 'SYMLINK_REFUSED', '.mcp.json');
    expect(readFileSync(outside, 'utf8')).toBe('{}');
    expect(existsSync(join(linked.dir, '.claude', 'settings.json'))).toBe(false);
  });

  it("--local: the hooks call this machine's baton from .claude/settings.local.json, which git ignores; the team's files are left alone", async () => {
    const { main } = repoWithWorktree();
    const run = await setupIn(main, ['setup', 'claude-code', '--local'], NO_BATON_PATH);
    expect(run.code).toBe(0);
    expect(run.json['files']).toEqual(['.claude/settings.local.json']);
    const local = readJson<Settings>(join(main, '.claude', 'settings.local.json'));
    expect(local.hooks['SessionStart']!.at(-1)!.hooks[0]!.command).toBe(`${process.execPath} ${BATON_BIN} hook claude-code SessionStart`);
    // The team's files are not this machine's: none written.
    for (const file of SHARED) expect(existsSync(join(main, file)), file).toBe(false);
    // Baton's MCP server for this machine: Claude Code's own local scope, said, not written.
    expect(String((run.json['notes'] as string[]).join('\n'))).toContain(
      `claude mcp add --scope local baton -- ${process.execPath} ${BATON_BIN} mcp --client claude-code`,
    );
    // Not in the team's .gitignore: the repository's own exclude file.
    expect(git(main, 'check-ignore', '.claude/settings.local.json').trim()).toBe('.claude/settings.local.json');
    expect(existsSync(join(main, '.gitignore'))).toBe(false);
    expect(String((run.json['notes'] as string[]).join('\n'))).toContain('git ignores it');
    expect(git(main, 'status', '--porcelain', '--untracked-files=all')).not.toContain('settings.local.json');
    // A second run changes nothing and excludes it once.
    expect((await setupIn(main, ['setup', 'claude-code', '--local'], NO_BATON_PATH)).json).toMatchObject({ changed: false });
    expect(readFileSync(join(main, '.git', 'info', 'exclude'), 'utf8').match(/settings\.local\.json/g)).toHaveLength(1);
    // The shared settings running Baton too: Claude Code would run both, and setup says so.
    expect((await setupIn(main, ['setup', 'claude-code'], withBaton())).code).toBe(0);
    const both = await setupIn(main, ['setup', 'claude-code', '--local'], NO_BATON_PATH);
    expect(both.json).toMatchObject({ changed: false, warnings: [expect.stringContaining('calls Baton twice')] });
    // Only Claude Code has a local settings file.
    expectRefused(await setupIn(main, ['setup', 'codex', '--local'], NO_BATON_PATH), 2, 'INVALID_INPUT', '--local');
  });
});

describe('baton setup claude-code in a linked git worktree', () => {
  it('files not committed: the main checkout is set up and the worktree gets its own copies, which work from there', async () => {
    const { main, worktree } = repoWithWorktree();
    const path = withBaton();
    const run = await setupIn(worktree, ['setup', 'claude-code'], path);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      changed: true,
      files: SHARED,
      worktree: { path: worktree, committed_in_main: [], checked_out: [], written: SHARED, changed: true },
    });
    for (const file of SHARED) expect(readFileSync(join(worktree, file), 'utf8'), file).toBe(readFileSync(join(main, file), 'utf8'));
    // The worktree's MCP server is Baton's, and shares the main checkout's store.
    expect(readJson<McpJson>(join(worktree, '.mcp.json')).mcpServers['baton']!.command).toBe('baton');
    const human = await runBaton(['--human', 'setup', 'claude-code'], { cwd: worktree, env: { BATON_NOW: T0, PATH: path } });
    expect(human.stdout).toContain(`claude-code is already set up in ${main} (nothing changed)`);
    expect(human.stdout).toContain(`worktree ${worktree} (none committed in the main checkout):`);
    expect(human.stdout).toContain('already here (git does not give them to this worktree): .claude/settings.json, .mcp.json, CLAUDE.md');
  });

  it('files committed in the main checkout and checked out in the worktree: nothing written there, and it says so', async () => {
    const { main } = repoWithWorktree();
    const path = withBaton();
    expect((await setupIn(main, ['setup', 'claude-code'], path)).code).toBe(0);
    git(main, 'add', ...SHARED);
    git(main, 'commit', '-q', '-m', 'Baton for Claude Code');
    const worktree = join(main, '..', 'wt-after');
    git(main, 'worktree', 'add', '-q', worktree);
    const before = SHARED.map((f) => readFileSync(join(worktree, f)));
    const run = await setupIn(worktree, ['setup', 'claude-code'], path);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      changed: false,
      worktree: { committed_in_main: SHARED, checked_out: SHARED, written: [], changed: false },
      warnings: [],
    });
    SHARED.forEach((f, i) => expect(readFileSync(join(worktree, f)).equals(before[i]!)).toBe(true));
    expect(git(worktree, 'status', '--porcelain')).toBe('');
    const human = await runBaton(['--human', 'setup', 'claude-code'], { cwd: worktree, env: { BATON_NOW: T0, PATH: path } });
    expect(human.stdout).toContain('from git (committed, checked out here; nothing written): .claude/settings.json, .mcp.json, CLAUDE.md');
  });
});
