import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PathGuardEnvelope } from '../../src/app/envelopes/guard.js';
import { batonSessionIdFor } from '../../src/integrations/claude-code/session-map.js';
import { batonIn, childEnv } from '../helpers/cli.js';
import { connectMcp } from '../helpers/mcp-client.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { T0, WuWorkspace } from './helpers.js';

afterAll(removeTempDirs);

/**
 * File reservations, through the surfaces their users meet: `baton guard` (the binary), Claude
 * Code's PreToolUse hook (its JSON on stdin), a real `git commit` through the installed pre-commit
 * hook, and the MCP `check_paths` tool. A live claim reserves its WU's code_paths and its `--paths`
 * for its holder; another live holder's write is refused, the holder's own is not.
 */
const setup = WuWorkspace.shared(async (ws) => {
  await ws.wu(1, 'L1', ['--code-paths', 'src/core/**']);
  await ws.wu(2, 'L2', ['--code-paths', 'src/ui/**']);
  const a = await ws.setUpSession();
  const b = await ws.setUpSession();
  await ws.ok(['wu', 'claim', 'WU-1', '--mode', 'branch-only', '--paths', 'docs/api/**', 'README.md'], { session: a });
  return { a, b };
});

const guardOf = (run: { last: unknown }) => PathGuardEnvelope.parse(run.last);

describe('baton guard PATH…', () => {
  it("exit 0 for free paths and the holder's own; exit 4 with the WU and holder for another live holder's; appends nothing", async () => {
    const { ws, a, b } = await setup();
    const head = ws.headSeq();
    expect(ws.events().find((e) => e.type === 'wu.claimed')!.data).toMatchObject({ wu_id: 'WU-1', paths: ['docs/api/**', 'README.md'] });

    const theirs = await ws.run(['guard', 'src/core/parser.ts', 'docs/api/claims.md', 'notes.txt'], { session: b });
    expect(theirs.code, theirs.stdout + theirs.stderr).toBe(4);
    const held = guardOf(theirs);
    expect(held).toMatchObject({ type: 'path_guard', ok: false, acting: { session: b }, held: ['src/core/parser.ts', 'docs/api/claims.md'] });
    expect(held.paths.map((p) => [p.path, p.status])).toEqual([
      ['src/core/parser.ts', 'held'],
      ['docs/api/claims.md', 'held'],
      ['notes.txt', 'free'],
    ]);
    expect(held.paths[0]!.reservations).toEqual([
      { wu_id: 'WU-1', glob: 'src/core/**', mine: false, holder: expect.objectContaining({ session: a }) as unknown },
    ]);

    const mine = await ws.run(['guard', 'src/core/parser.ts', join(ws.dir, 'README.md')], { session: a });
    expect(mine.code).toBe(0);
    expect(guardOf(mine)).toMatchObject({ ok: true, held: [], paths: [{ status: 'mine' }, { repo_path: 'README.md', status: 'mine' }] });
    expect((await ws.run(['guard', 'src/ui/x.ts', '/etc/hosts'], { session: b })).code).toBe(0);
    expect(ws.headSeq()).toBe(head);
  });

  it('a path relative to the current directory is made relative to the workspace; no path is exit 2 naming PATH', async () => {
    const { ws, b } = await setup();
    mkdirSync(join(ws.dir, 'src', 'core'), { recursive: true });
    const run = await batonIn(ws.dir, ['--json', '--session', b, 'guard', 'core/lexer.ts'], { cwd: join(ws.dir, 'src'), env: { BATON_NOW: T0 } });
    expect(run.code).toBe(4);
    expect(PathGuardEnvelope.parse(JSON.parse(run.stdout.trim().split('\n').at(-1)!)).paths[0]).toMatchObject({
      repo_path: 'src/core/lexer.ts',
      status: 'held',
    });
    const none = await ws.fail(['guard'], 2, { session: b });
    expect(none.message).toMatch(/^PATH: /);
  });

  it('frees the paths when the holder ends its session', async () => {
    const { ws, a, b } = await setup();
    await ws.ok(['session', 'end', a]);
    expect((await ws.run(['guard', 'src/core/parser.ts'], { session: b })).code).toBe(0);
  });
});

const claudeInput = (dir: string, claudeSession: string, tool: string, input: Record<string, unknown>) =>
  JSON.stringify({ session_id: claudeSession, transcript_path: '/tmp/t.jsonl', cwd: dir, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input });

async function preToolUse(dir: string, input: string) {
  return batonIn(dir, ['hook', 'claude-code', 'PreToolUse'], { input, env: { BATON_NOW: T0, BATON_HOOK_DEADLINE_MS: '30000' } });
}

describe("Claude Code's PreToolUse hook", () => {
  it('denies a write to a path another live holder reserves, naming the WU, the holder and how to coordinate; allows the rest', async () => {
    const { ws, a } = await setup();
    const denied = await preToolUse(
      ws.dir,
      claudeInput(ws.dir, 'claude-other', 'Edit', { file_path: join(ws.dir, 'src/core/parser.ts'), old_string: 'a', new_string: 'b' }),
    );
    expect([denied.code, denied.stderr]).toEqual([0, '']);
    const answer = JSON.parse(denied.stdout) as { hookSpecificOutput: { hookEventName: string; permissionDecision: string; permissionDecisionReason: string } };
    expect(answer.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
    for (const word of ['src/core/parser.ts', 'WU-1', a, `baton mem signal --to ${a} --wu WU-1`])
      expect(answer.hookSpecificOutput.permissionDecisionReason).toContain(word);

    const notebook = await preToolUse(
      ws.dir,
      claudeInput(ws.dir, 'claude-other', 'NotebookEdit', { notebook_path: join(ws.dir, 'docs/api/a.ipynb'), new_source: 'x' }),
    );
    expect(notebook.stdout).toContain('"permissionDecision":"deny"');
    const free = await preToolUse(ws.dir, claudeInput(ws.dir, 'claude-other', 'Write', { file_path: join(ws.dir, 'src/ui/x.ts'), content: 'x' }));
    expect([free.code, free.stdout, free.stderr]).toEqual([0, '', '']);
  });

  it("allows the holder's own Claude session, and everyone once the holder's session ended", async () => {
    const { ws, a } = await setup();
    // The Baton session of Claude session `claude-holder` (session-map.ts) claims WU-2.
    const holder = batonSessionIdFor('claude-holder', 0);
    await batonIn(ws.dir, ['hook', 'claude-code', 'SessionStart'], {
      input: JSON.stringify({ session_id: 'claude-holder', cwd: ws.dir, hook_event_name: 'SessionStart', source: 'startup' }),
      env: { BATON_NOW: T0, BATON_HOOK_DEADLINE_MS: '30000' },
    });
    await ws.ok(['wu', 'claim', 'WU-2', '--mode', 'branch-only'], { session: holder });
    const own = await preToolUse(ws.dir, claudeInput(ws.dir, 'claude-holder', 'Edit', { file_path: join(ws.dir, 'src/ui/button.tsx') }));
    expect([own.code, own.stdout]).toEqual([0, '']);
    const other = claudeInput(ws.dir, 'claude-other', 'Edit', { file_path: join(ws.dir, 'src/core/parser.ts') });
    expect((await preToolUse(ws.dir, other)).stdout).toContain('"permissionDecision":"deny"');
    await ws.ok(['session', 'end', a]);
    const after = await preToolUse(ws.dir, other);
    expect([after.code, after.stdout, after.stderr]).toEqual([0, '', '']);
  });

  it('a broken .baton/ (a corrupt log line) allows the write, with one line on stderr', async () => {
    const { ws } = await setup();
    rmSync(join(ws.dir, '.baton', 'cache'), { recursive: true, force: true });
    const logDir = join(ws.dir, '.baton', 'log');
    const segment = join(logDir, readdirSync(logDir).filter((f) => f.endsWith('.jsonl'))[0]!);
    const lines = readFileSync(segment, 'utf8').split('\n');
    lines[1] = lines[1]!.replace('"INIT-1"', '"INIT-9"');
    writeFileSync(segment, lines.join('\n'));
    const run = await preToolUse(ws.dir, claudeInput(ws.dir, 'claude-other', 'Edit', { file_path: join(ws.dir, 'src/core/parser.ts') }));
    expect([run.code, run.stdout]).toEqual([0, '']);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('the write is allowed');
  });

  it('baton setup claude-code installs it for the tools that write a file', async () => {
    const ws = await WuWorkspace.create({ initiative: false });
    await ws.ok(['setup', 'claude-code']);
    const settings = JSON.parse(readFileSync(join(ws.dir, '.claude', 'settings.json'), 'utf8')) as {
      hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]>;
    };
    const entry = settings.hooks['PreToolUse']!.at(-1)!;
    expect(entry.matcher).toBe('Edit|Write|MultiEdit|NotebookEdit');
    expect(entry.hooks[0]!.command).toMatch(/ hook claude-code PreToolUse$/);
  });
});

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', GIT_CONFIG_NOSYSTEM: '1' };

describe('the pre-commit hook (baton setup git-hooks)', () => {
  const git = (dir: string, args: readonly string[], env: Record<string, string> = {}) =>
    spawnSync('git', args, { cwd: dir, encoding: 'utf8', env: childEnv({ ...GIT_ENV, HOME: dir, BATON_NOW: T0, ...env }) });

  it('refuses a commit staging a reserved path, listing it; BATON_GUARD=off commits and is recorded; the commit passes after release', async () => {
    const ws = await WuWorkspace.create();
    git(ws.dir, ['init', '-q', '-b', 'main']);
    writeFileSync(join(ws.dir, '.gitignore'), '.baton/\n');
    // The project's own pre-commit hook: kept, and run first.
    writeFileSync(join(ws.dir, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\necho ran >> "$(git rev-parse --show-toplevel)/user-hook.log"\n');
    chmodSync(join(ws.dir, '.git', 'hooks', 'pre-commit'), 0o755);
    const installed = await ws.ok(['setup', 'git-hooks']);
    expect(installed.last).toMatchObject({ client: 'git-hooks', changed: true, files: ['.git/hooks/pre-commit', '.git/hooks/pre-commit.baton-chained'] });
    const script = readFileSync(join(ws.dir, '.git', 'hooks', 'pre-commit'), 'utf8');
    expect((await ws.ok(['setup', 'git-hooks'])).last).toMatchObject({ changed: false });
    expect(readFileSync(join(ws.dir, '.git', 'hooks', 'pre-commit'), 'utf8')).toBe(script);

    await ws.wu(1, 'L1', ['--code-paths', 'src/**']);
    const a = await ws.startSession();
    await ws.ok(['wu', 'claim', 'WU-1', '--mode', 'branch-only'], { session: a });
    mkdirSync(join(ws.dir, 'src'));
    writeFileSync(join(ws.dir, 'src', 'a.ts'), 'a\n');
    git(ws.dir, ['add', '.gitignore', 'src/a.ts']);
    const refused = git(ws.dir, ['commit', '-q', '-m', 'one']);
    expect(refused.status).toBe(1);
    expect(refused.stdout + refused.stderr).toMatch(/src\/a\.ts: reserved by WU-1 \(src\/\*\*\), held by session_/);
    expect(git(ws.dir, ['rev-parse', '-q', '--verify', 'HEAD']).status).not.toBe(0);
    expect(readFileSync(join(ws.dir, 'user-hook.log'), 'utf8')).toBe('ran\n');

    const skipped = git(ws.dir, ['commit', '-q', '-m', 'one'], { BATON_GUARD: 'off' });
    expect(skipped.status).toBe(0);
    expect(ws.events().at(-1)).toMatchObject({
      type: 'guard.skipped',
      data: { check: 'staged', via: 'BATON_GUARD=off', paths: 2, overridden: [{ path: 'src/a.ts', wu_id: 'WU-1', holder: a }] },
    });

    writeFileSync(join(ws.dir, 'src', 'b.ts'), 'b\n');
    git(ws.dir, ['add', 'src/b.ts']);
    expect(git(ws.dir, ['commit', '-q', '-m', 'two']).status).toBe(1);
    // The holder itself commits its own files.
    expect(git(ws.dir, ['commit', '-q', '-m', 'two'], { BATON_SESSION: a }).status).toBe(0);
    writeFileSync(join(ws.dir, 'src', 'c.ts'), 'c\n');
    git(ws.dir, ['add', 'src/c.ts']);
    expect(git(ws.dir, ['commit', '-q', '-m', 'three']).status).toBe(1);
    await ws.ok(['wu', 'release', 'WU-1'], { session: a });
    const passed = git(ws.dir, ['commit', '-q', '-m', 'three']);
    expect([passed.status, passed.stderr]).toEqual([0, 'baton guard: 1 staged path(s), none reserved by another live holder\n']);
  });

  it('goes where core.hooksPath says', async () => {
    const ws = await WuWorkspace.create({ initiative: false });
    git(ws.dir, ['init', '-q', '-b', 'main']);
    git(ws.dir, ['config', 'core.hooksPath', '.githooks']);
    expect((await ws.ok(['setup', 'git-hooks'])).last).toMatchObject({ files: ['.githooks/pre-commit'] });
    expect(readFileSync(join(ws.dir, '.githooks', 'pre-commit'), 'utf8')).toContain(' guard --staged --human');
    expect(existsSync(join(ws.dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: ws.dir, encoding: 'utf8' })).toContain('.githooks/');
  });
});

describe('MCP check_paths', () => {
  it('answers who holds each path, through the SDK client', async () => {
    const { ws, b } = await setup();
    const client = await connectMcp(ws.dir, b);
    try {
      const result = await client.callTool({ name: 'check_paths', arguments: { paths: ['src/core/parser.ts', 'notes.md'] } });
      expect(result.isError).not.toBe(true);
      const envelope = PathGuardEnvelope.parse(JSON.parse((result.content as { type: 'text'; text: string }[])[0]!.text));
      expect(envelope).toMatchObject({ ok: false, held: ['src/core/parser.ts'], paths: [{ status: 'held' }, { status: 'free' }] });
      expect(envelope.paths[0]!.reservations[0]).toMatchObject({ wu_id: 'WU-1', mine: false });
    } finally {
      await client.close();
    }
  }, 60_000);
});
