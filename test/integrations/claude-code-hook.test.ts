import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { acquireProcessLock, lockNameFor } from '../../src/store/jsonl/process-lock.js';
import { batonIn, jsonLines, type CliResult } from '../helpers/cli.js';
import { T0, workspace, type Workspace } from '../helpers/coordination.js';
import { logDir, makeTempDir, removeTempDirs, segmentBytes } from '../helpers/workspace.js';

afterAll(removeTempDirs);

/**
 * `baton hook claude-code <EVENT>` fed the JSON Claude Code writes on a hook's stdin (its hooks
 * reference: `session_id`, `transcript_path`, `cwd`, `hook_event_name`, plus `source` on
 * SessionStart, `tool_name`/`tool_input`/`tool_response` on PostToolUse, `prompt` on
 * UserPromptSubmit, `agent_id`/`agent_type` on SubagentStart/SubagentStop, `reason` on SessionEnd),
 * answering with Claude Code's hook JSON (`hookSpecificOutput.additionalContext`).
 */
const HookAnswer = z.strictObject({
  hookSpecificOutput: z.strictObject({ hookEventName: z.string(), additionalContext: z.string() }),
});

function fixture(ws: { dir: string }, event: string, claudeSession: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: claudeSession,
    transcript_path: `/home/dev/.claude/projects/demo/${claudeSession}.jsonl`,
    cwd: ws.dir,
    hook_event_name: event,
    ...extra,
  });
}

const TOOL_CALL = { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: { stdout: 'a\nb\n' }, tool_use_id: 'toolu_01' };

async function hook(
  ws: { dir: string },
  event: string,
  claudeSession: string,
  extra: Record<string, unknown> = {},
  env: Record<string, string | undefined> = {},
): Promise<CliResult> {
  // The hook is run as Claude Code runs it: no --dir (cwd and CLAUDE_PROJECT_DIR name the project).
  const { runBaton } = await import('../helpers/cli.js');
  return runBaton(['hook', 'claude-code', event], {
    input: fixture(ws, event, claudeSession, extra),
    cwd: ws.dir,
    env: { BATON_NOW: T0, CLAUDE_PROJECT_DIR: ws.dir, BATON_HOOK_DEADLINE_MS: '30000', ...env },
  });
}

function answerOf(run: CliResult, event: string): string {
  expect(run.code).toBe(0);
  expect(run.stderr).toBe('');
  const answer = HookAnswer.parse(JSON.parse(run.stdout));
  expect(answer.hookSpecificOutput.hookEventName).toBe(event);
  return answer.hookSpecificOutput.additionalContext;
}

function silent(run: CliResult): void {
  expect([run.code, run.stdout, run.stderr]).toEqual([0, '', '']);
}

const started = (ws: Workspace) => ws.events().filter((e) => e.type === 'session.started');

describe('baton hook claude-code: sessions, brief, signals', () => {
  it('start → brief; a signal from another session is delivered once; compact → same session, brief again', async () => {
    const ws = await workspace();
    const envFile = join(makeTempDir('claude-env-'), 'env.sh');
    const brief = answerOf(
      await hook(ws, 'SessionStart', 'claude-abc', { source: 'startup', model: 'claude-sonnet' }, { CLAUDE_ENV_FILE: envFile }),
      'SessionStart',
    );
    const [session] = started(ws);
    const id = String(session!.data['session_id']);
    expect(session!.data).toMatchObject({ display_name: 'Planck', client_type: 'claude-code' });
    expect(brief).toContain(`you are Planck (session ${id})`);
    expect(brief).toContain('Next action:');
    expect(brief).toContain('No unread signals.');
    expect(readFileSync(envFile, 'utf8')).toBe(`export BATON_SESSION=${id}\n`);

    // Nothing new: the tool-call hook says nothing and appends nothing.
    const head = ws.head();
    silent(await hook(ws, 'PostToolUse', 'claude-abc', TOOL_CALL));
    expect(ws.head()).toBe(head);

    const other = await ws.start(['--agent-identity', 'codex:reviewer']);
    const sent = await ws.signal('Please rebase on main before you push', ['--to', 'Planck', '--intent', 'PROPOSE'], { as: other });
    const delivered = answerOf(await hook(ws, 'PostToolUse', 'claude-abc', TOOL_CALL), 'PostToolUse');
    expect(delivered).toContain(sent.signal_id);
    expect(delivered).toContain('Please rebase on main before you push');
    expect(delivered).toContain('from codex:reviewer (Noether)');
    const receipts = ws.events().filter((e) => e.type === 'receipt.recorded');
    expect(receipts.map((e) => [e.data['signal_id'], e.data['via'], e.data['session_id'], e.actor])).toEqual([[sent.signal_id, 'hook', id, id]]);
    // Not again, on any later prompt or tool call.
    silent(await hook(ws, 'UserPromptSubmit', 'claude-abc', { prompt: 'go on' }));
    silent(await hook(ws, 'PostToolUse', 'claude-abc', TOOL_CALL));

    // The session claims a work unit and checkpoints; after a compaction the brief says so.
    await ws.withWus('WU-1');
    await ws.ok(['wu', 'claim', 'WU-1'], { as: id });
    await ws.ok(['wu', 'checkpoint', 'WU-1', '--note', 'ledger schema drafted'], { as: id });
    const again = answerOf(await hook(ws, 'SessionStart', 'claude-abc', { source: 'compact' }), 'SessionStart');
    expect(started(ws)).toHaveLength(2); // Planck and the other session: compact continued Planck
    expect(again).toContain(`you are Planck (session ${id}), continued after a context compaction`);
    expect(again).toContain('Work unit WU-1');
    expect(again).toContain('ledger schema drafted');
    expect(again.length).toBeLessThanOrEqual(2000);
    const resumed = answerOf(await hook(ws, 'SessionStart', 'claude-abc', { source: 'resume' }), 'SessionStart');
    expect(resumed).toContain(`(session ${id}), resumed`);
    expect(started(ws)).toHaveLength(2);
    expect(ws.events().filter((e) => e.type === 'session.heartbeat' && e.data['session_id'] === id).length).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('unread signals at start are in the brief (trimmed to the budget) and then count as delivered', async () => {
    const ws = await workspace();
    const other = await ws.start();
    answerOf(await hook(ws, 'SessionStart', 'claude-xyz', { source: 'startup' }), 'SessionStart');
    for (let i = 0; i < 8; i++) await ws.signal(`note ${i}: ${'x'.repeat(400)}`, ['--to', 'Noether'], { as: other });
    const brief = answerOf(await hook(ws, 'SessionStart', 'claude-xyz', { source: 'resume' }), 'SessionStart');
    expect(brief.length).toBeLessThanOrEqual(2000);
    expect(brief).toContain('Unread signals (8):');
    expect(brief).toMatch(/… and \d+ more: `baton mem inbox`/);
    const shown = ws.events().filter((e) => e.type === 'receipt.recorded').length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(8);
    // The rest come with the next tool call, once.
    const rest = answerOf(await hook(ws, 'PostToolUse', 'claude-xyz', TOOL_CALL), 'PostToolUse');
    expect(rest).toContain(`${8 - shown} new signals`);
    silent(await hook(ws, 'PostToolUse', 'claude-xyz', TOOL_CALL));
  }, 120_000);

  it('subagent start and stop are recorded on the session task; Stop heartbeats; SessionEnd ends; a later resume starts the next session', async () => {
    const ws = await workspace();
    answerOf(await hook(ws, 'SessionStart', 'claude-sub', { source: 'startup' }), 'SessionStart');
    const id = String(started(ws)[0]!.data['session_id']);
    const sub = { agent_id: 'agent-7f3a', agent_type: 'general-purpose' };
    silent(await hook(ws, 'SubagentStart', 'claude-sub', sub));
    silent(await hook(ws, 'SubagentStart', 'claude-sub', sub)); // a repeat records nothing new
    const subStarted = ws.events().filter((e) => e.type === 'subagent.started');
    expect(subStarted).toHaveLength(1);
    expect(subStarted[0]!.data).toMatchObject({ session_id: id, kind: 'general_purpose' });
    expect(subStarted[0]!.actor).toBe(id);
    const root = ws.events().find((e) => e.type === 'task.created');
    expect(root!.data).toMatchObject({ session_id: id, state: 'running' });
    expect(subStarted[0]!.data['root_task_id']).toBe(root!.data['task_id']);
    silent(await hook(ws, 'SubagentStop', 'claude-sub', { ...sub, stop_hook_active: false, last_assistant_message: 'done' }));
    const finished = ws.events().filter((e) => e.type === 'subagent.finished');
    expect(finished.map((e) => e.data['subagent_id'])).toEqual([subStarted[0]!.data['subagent_id']]);

    silent(await hook(ws, 'Stop', 'claude-sub', { stop_hook_active: false }));
    expect(ws.events().at(-1)).toMatchObject({ type: 'session.heartbeat', data: { session_id: id } });
    silent(await hook(ws, 'SessionEnd', 'claude-sub', { reason: 'prompt_input_exit' }));
    expect(ws.events().at(-1)).toMatchObject({ type: 'session.ended', data: { session_id: id, status: 'succeeded' } });

    const next = answerOf(await hook(ws, 'SessionStart', 'claude-sub', { source: 'resume' }), 'SessionStart');
    const ids = started(ws).map((e) => e.data['session_id']);
    expect(ids).toHaveLength(2);
    expect(ids[1]).not.toBe(id);
    expect(next).toContain(`(session ${String(ids[1])})`);
  }, 120_000);
});

describe('baton hook claude-code never blocks the agent', () => {
  it('no Baton workspace: exit 0, one stderr line, nothing created', async () => {
    const dir = makeTempDir('no-baton-');
    const run = await hook({ dir }, 'SessionStart', 'claude-none', { source: 'startup' });
    expect([run.code, run.stdout]).toEqual([0, '']);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('no Baton workspace');
    expect(existsSync(join(dir, '.baton'))).toBe(false);
  });

  it('a corrupt log: exit 0, one stderr line, the log untouched', async () => {
    const ws = await workspace();
    await ws.start();
    await ws.start();
    const segment = join(logDir(ws.dir), '000000000001.jsonl');
    const bytes = readFileSync(segment);
    const text = bytes.toString('utf8');
    const cut = text.indexOf('\n') + 20;
    writeFileSync(segment, text.slice(0, cut) + 'X' + text.slice(cut + 1));
    const before = segmentBytes(ws.dir);
    for (const event of ['SessionStart', 'PostToolUse']) {
      const run = await hook(ws, event, 'claude-bad', event === 'SessionStart' ? { source: 'startup' } : TOOL_CALL);
      expect([run.code, run.stdout]).toEqual([0, '']);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^baton hook: LOG_CORRUPT/);
    }
    expect(segmentBytes(ws.dir).equals(before)).toBe(true);
  });

  it('bad stdin or an unknown event: exit 0, one stderr line, nothing appended', async () => {
    const ws = await workspace();
    const { runBaton } = await import('../helpers/cli.js');
    const garbage = await runBaton(['hook', 'claude-code', 'PostToolUse'], { input: '{not json', cwd: ws.dir, env: { CLAUDE_PROJECT_DIR: ws.dir } });
    expect([garbage.code, garbage.stdout]).toEqual([0, '']);
    expect(garbage.stderr).toMatch(/^baton hook: INVALID_INPUT: stdin: is not valid JSON/);
    const unknown = await hook(ws, 'Notification', 'claude-n', { message: 'hi' });
    expect([unknown.code, unknown.stdout]).toEqual([0, '']);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(ws.head()).toBe(0);
  });

  it('a busy store: the hook gives up within its deadline, exit 0, one stderr line, nothing appended', async () => {
    const ws = await workspace();
    const lock = await acquireProcessLock(lockNameFor(logDir(ws.dir)), { timeoutMs: 5000 });
    try {
      const startedAt = Date.now();
      const run = await hook(ws, 'SessionStart', 'claude-busy', { source: 'startup' }, { BATON_HOOK_DEADLINE_MS: undefined });
      const elapsed = Date.now() - startedAt;
      expect([run.code, run.stdout]).toEqual([0, '']);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      // The process answered on its own (not killed by the harness); its wall time includes node's start.
      expect(elapsed).toBeLessThan(20_000);
    } finally {
      await lock.release();
    }
    expect(ws.head()).toBe(0);
  });
});

/** A folder holding an executable `baton`, to put on PATH. */
function fakeBatonDir(): string {
  const dir = makeTempDir('baton-path-');
  writeFileSync(join(dir, 'baton'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(dir, 'baton'), 0o755);
  return dir;
}

describe('baton setup claude-code', () => {
  const settingsPath = (dir: string) => join(dir, '.claude', 'settings.json');
  const USER_SETTINGS = {
    permissions: { allow: ['Bash(npm test)'] },
    hooks: {
      PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'npx prettier --write "$CLAUDE_FILE_PATHS"' }] }],
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './scripts/guard.sh' }] }],
      SessionStart: [{ hooks: [{ type: 'command', command: 'cat .claude/welcome.txt' }] }],
    },
  };

  it("keeps the user's own hooks and text; a second run is byte-identical and says nothing changed", async () => {
    const ws = await workspace();
    mkdirSync(join(ws.dir, '.claude'));
    writeFileSync(settingsPath(ws.dir), JSON.stringify(USER_SETTINGS, null, 2));
    writeFileSync(join(ws.dir, 'CLAUDE.md'), '# Project rules\n\nUse pnpm.\n');
    // baton on PATH: the team's files call it by name.
    const onPath = { env: { PATH: `${fakeBatonDir()}${delimiter}${process.env['PATH'] ?? ''}` } };
    const first = await ws.ok(['setup', 'claude-code'], onPath);
    expect(first.json).toMatchObject({ type: 'client_setup', client: 'claude-code', changed: true, warnings: [] });
    const settings = JSON.parse(readFileSync(settingsPath(ws.dir), 'utf8')) as {
      permissions: unknown;
      hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]>;
    };
    expect(settings.permissions).toEqual(USER_SETTINGS.permissions);
    // The user's PreToolUse entries as they were, then Baton's (the reservation guard on writes).
    expect(settings.hooks['PreToolUse']!.slice(0, -1)).toEqual(USER_SETTINGS.hooks.PreToolUse);
    expect(settings.hooks['PreToolUse']!.at(-1)!.matcher).toBe('Edit|Write|MultiEdit|NotebookEdit');
    expect(settings.hooks['PostToolUse']![0]).toEqual(USER_SETTINGS.hooks.PostToolUse[0]);
    expect(settings.hooks['SessionStart']![0]).toEqual(USER_SETTINGS.hooks.SessionStart[0]);
    for (const event of ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'SubagentStart', 'SubagentStop', 'Stop', 'SessionEnd']) {
      const ours = settings.hooks[event]!.at(-1)!.hooks[0]!.command;
      // A file the team shares: the portable command, never this machine's node or script.
      expect(ours).toBe(`baton hook claude-code ${event}`);
    }
    const claudeMd = readFileSync(join(ws.dir, 'CLAUDE.md'), 'utf8');
    expect(claudeMd.startsWith('# Project rules\n\nUse pnpm.\n')).toBe(true);
    expect(claudeMd).toContain('baton wu checkpoint');

    const bytes = [readFileSync(settingsPath(ws.dir)), readFileSync(join(ws.dir, 'CLAUDE.md'))];
    const second = await ws.ok(['setup', 'claude-code'], onPath);
    expect(second.json).toMatchObject({ changed: false });
    expect(readFileSync(settingsPath(ws.dir)).equals(bytes[0]!)).toBe(true);
    expect(readFileSync(join(ws.dir, 'CLAUDE.md')).equals(bytes[1]!)).toBe(true);
    // The alias does the same, and changes nothing either.
    expect((await ws.ok(['hooks', 'install', 'claude-code'], onPath)).json).toMatchObject({ type: 'client_setup', changed: false });
    expect(ws.head()).toBe(0);
  });

  it('replaces the earlier drain-script entry and an edited Baton section, nothing else', async () => {
    const ws = await workspace();
    mkdirSync(join(ws.dir, '.claude'));
    const old = { matcher: '*', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/signal-received.sh' }] };
    writeFileSync(settingsPath(ws.dir), JSON.stringify({ hooks: { PostToolUse: [old] } }));
    await ws.ok(['setup', 'claude-code']);
    const first = readFileSync(join(ws.dir, 'CLAUDE.md'), 'utf8');
    writeFileSync(join(ws.dir, 'CLAUDE.md'), `intro\n\n${first.replace('baton status', 'baton statuz')}\noutro\n`);
    await ws.ok(['setup', 'claude-code']);
    const settings = JSON.parse(readFileSync(settingsPath(ws.dir), 'utf8')) as { hooks: { PostToolUse: { hooks: { command: string }[] }[] } };
    expect(settings.hooks.PostToolUse).toHaveLength(1);
    expect(settings.hooks.PostToolUse[0]!.hooks[0]!.command).toMatch(/ hook claude-code PostToolUse$/);
    expect(readFileSync(join(ws.dir, 'CLAUDE.md'), 'utf8')).toBe(`intro\n\n${first}\noutro\n`);
  });

  it('prints what it installed (human)', async () => {
    const ws = await workspace();
    const run = await batonIn(ws.dir, ['--human', 'setup', 'claude-code']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('set up claude-code');
    expect(run.stdout).toMatch(/PostToolUse +.* hook claude-code PostToolUse/);
    expect(jsonLines('')).toEqual([]);
  });
});
