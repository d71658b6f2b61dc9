import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  at,
  envelope,
  envelopes,
  HookDrainEnvelope,
  RosterEnvelope,
  sharedWorkspace,
  SignalReceivedEnvelope,
  workspace,
  WuPrepEnvelope,
  type Workspace,
} from '../helpers/coordination.js';
import { childEnv, pathWithBaton, errorEnvelopeOf, jsonLines, startBaton } from '../helpers/cli.js';
import { ClientSetupEnvelope } from '../../src/app/envelopes/integrations.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { CountingContext } from '../helpers/counting-store.js';
import { prepWorkUnit } from '../../src/app/commands/work-unit-prep.js';

afterAll(removeTempDirs);

const pendingPath = (ws: Workspace, session: string) => join(ws.dir, '.baton', 'hooks', 'pending', `${session}.jsonl`);
const receiptsVia = (ws: Workspace, via: string) => ws.events().filter((e) => e.type === 'receipt.recorded' && e.data['via'] === via);
/** The part of `.claude/settings.json` the install owns; every other key is kept as it was. */
const ClaudeSettings = z.looseObject({ hooks: z.looseObject({ PostToolUse: z.array(z.unknown()) }) });
const readSettings = (ws: Workspace) => ClaudeSettings.parse(JSON.parse(readFileSync(join(ws.dir, '.claude', 'settings.json'), 'utf8')));

describe('hooks install (35)', () => {
  // `hooks install claude-code` is now an alias of `setup claude-code`: the settings
  // entry runs `baton hook claude-code PostToolUse`, which answers with Claude Code's hook JSON.
  it('35: writes one PostToolUse entry calling `baton hook claude-code`, keeping other keys; idempotent', async () => {
    const ws = await workspace();
    mkdirSync(join(ws.dir, '.claude'));
    writeFileSync(join(ws.dir, '.claude', 'settings.json'), '{"permissions":{"allow":["Bash(ls)"]}}');
    const onPath = { env: { PATH: pathWithBaton() } };
    const first = await ws.okAs(ClientSetupEnvelope, ['hooks', 'install', 'claude-code'], onPath);
    expect(first).toMatchObject({ type: 'client_setup', client: 'claude-code', changed: true });
    const settings = readSettings(ws);
    expect(settings['permissions']).toEqual({ allow: ['Bash(ls)'] });
    // The team's file calls `baton` by name (it is on PATH), never this machine's node and script.
    expect(settings.hooks.PostToolUse).toEqual([{ matcher: '*', hooks: [{ type: 'command', command: 'baton hook claude-code PostToolUse', timeout: 10 }] }]);
    const second = await ws.okAs(ClientSetupEnvelope, ['hooks', 'install', 'claude-code'], onPath);
    expect(second.changed).toBe(false);
    expect(readSettings(ws).hooks.PostToolUse).toHaveLength(1);
    expect(ws.head()).toBe(0);
  });

  it('35b: invalid settings JSON exits 2 and writes nothing', async () => {
    const ws = await workspace();
    mkdirSync(join(ws.dir, '.claude'));
    writeFileSync(join(ws.dir, '.claude', 'settings.json'), '{nope');
    const r = await ws.run(['hooks', 'install', 'claude-code']);
    expect(r.code).toBe(2);
    expect(existsSync(join(ws.dir, 'CLAUDE.md'))).toBe(false);
    expect(readFileSync(join(ws.dir, '.claude', 'settings.json'), 'utf8')).toBe('{nope');
  });
});

describe('hooks drain (36–38) and the hook script', () => {
  /** s1 (a Claude Code session), s2, and s2's signal D to s1 that requires an ack (built once, copied for each test). */
  const setup36 = sharedWorkspace(async (ws) => {
    const s1 = await ws.setUpSession({ client: 'claude-code' });
    const s2 = await ws.setUpSession();
    const sent = await ws.send('check this', ['--to', s1, '--requires-ack'], { as: s2 });
    return { s1, s2, d: sent.signal, sent };
  });

  it('36: the queue names D; drain prints the prompt and reply commands, records a hook receipt, then nothing', async () => {
    const { ws, s1, s2, d, sent } = await setup36();
    expect(sent.hook_enqueued).toEqual([s1]);
    const lines = readFileSync(pendingPath(ws, s1), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ event: 'signal:received', signal_id: d.signal_id });
    expect(statSync(pendingPath(ws, s1)).mode & 0o777).toBe(0o600);
    const drain = await ws.run(['--human', 'hooks', 'drain', '--session', s1]);
    expect(drain.code).toBe(0);
    expect(drain.stdout).toContain(`[signal:received] ${d.signal_id} from ${s2}`);
    expect(drain.stdout).toContain('check this');
    expect(drain.stdout).toContain(`baton mem signal '<answer>' --reply-to ${d.signal_id} --intent AGREE`);
    expect(drain.stdout).toContain(`baton mem signal '<reason>' --reply-to ${d.signal_id} --intent REJECT`);
    expect(receiptsVia(ws, 'hook').map((e) => [e.data['signal_id'], e.data['delivery_state']])).toEqual([[d.signal_id, 'delivered']]);
    const again = await ws.run(['--human', 'hooks', 'drain', '--session', s1]);
    expect([again.code, again.stdout]).toEqual([0, '']);
  });

  it('37: advisory signals are not queued and not drained, but the inbox lists them', async () => {
    const ws = await workspace();
    const s1 = await ws.setUpSession({ client: 'claude-code' });
    const s2 = await ws.setUpSession();
    const d = await ws.signal('fyi', ['--to', s1, '--interrupt-class', 'advisory'], { as: s2 });
    expect(existsSync(pendingPath(ws, s1))).toBe(false);
    const drain = await ws.run(['--human', 'hooks', 'drain', '--session', s1]);
    expect(drain.stdout).toBe('');
    const inbox = await ws.inbox([], { as: s1 });
    expect(inbox.signals.map((s) => s.signal_id)).toEqual([d.signal_id]);
  });

  it('38: a deleted queue loses nothing: drain reconciles with the log', async () => {
    const { ws, s1, d } = await setup36();
    rmSync(pendingPath(ws, s1));
    const drain = await ws.okAs(HookDrainEnvelope, ['hooks', 'drain', '--session', s1]);
    expect(drain.events.map((e) => e.signal.signal_id)).toEqual([d.signal_id]);
  });

  it('36b: unknown session exits 2 UNKNOWN_ID; an ended one prints nothing', async () => {
    const { ws, s1 } = await setup36();
    const unknown = await ws.run(['hooks', 'drain', '--session', 'session_000000000000000000000000']);
    expect([unknown.code, errorEnvelopeOf(unknown).code]).toEqual([2, 'UNKNOWN_ID']);
    await ws.ok(['session', 'end', s1]);
    const ended = await ws.run(['--human', 'hooks', 'drain', '--session', s1]);
    expect([ended.code, ended.stdout]).toEqual([0, '']);
  });

  it('the installed PostToolUse command, run by a real shell, hands the pending signal to the agent once (additionalContext, exit 0)', async () => {
    const { ws, s1, d } = await setup36();
    const PATH = pathWithBaton();
    await ws.ok(['hooks', 'install', 'claude-code'], { env: { PATH } });
    const command = (readSettings(ws).hooks.PostToolUse.at(-1) as { hooks: { command: string }[] }).hooks[0]!.command;
    // The Claude session that started s1 is not known to Baton: the hook works for the session it
    // derives from Claude Code's session_id, so s1's signal is sent again to that one.
    const run = (claudeSession: string) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        const child = execFile(
          '/bin/sh',
          ['-c', command],
          { env: childEnv({ CLAUDE_PROJECT_DIR: ws.dir, BATON_NOW: at(10), BATON_HOOK_DEADLINE_MS: '30000', PATH }) },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
        );
        child.stdin!.end(JSON.stringify({ session_id: claudeSession, hook_event_name: 'PostToolUse', cwd: ws.dir, tool_name: 'Read' }));
      });
    const first = await run('claude-1');
    expect(first.code).toBe(0);
    const brief = JSON.parse(first.stdout) as { hookSpecificOutput: { additionalContext: string } };
    expect(brief.hookSpecificOutput.additionalContext).toContain('you are');
    const claudeSession = ws
      .events()
      .filter((e) => e.type === 'session.started')
      .at(-1)!.data['session_id'] as string;
    expect(claudeSession).not.toBe(s1);
    const again = await ws.setUpSignal('check this too', { to: [claudeSession], requires_ack: true }, { as: s1 });
    const hook = await run('claude-1');
    expect(hook.code).toBe(0);
    expect(hook.stdout).toContain(again.signal_id);
    expect(receiptsVia(ws, 'hook').map((e) => e.data['signal_id'])).toEqual([again.signal_id]);
    const quiet = await run('claude-1');
    expect([quiet.code, quiet.stdout, quiet.stderr]).toEqual([0, '', '']);
    expect(d.signal_id).not.toBe(again.signal_id);
  });
});

describe('mem watch (39–41)', () => {
  it('39: --once delivers the catch-up set in seq order with latency, records watch receipts; then nothing', async () => {
    const ws = await workspace();
    const s1 = await ws.setUpSession({ client: 'codex' });
    const s2 = await ws.setUpSession();
    const b = await ws.setUpSignal('broadcast', {}, { as: s2 });
    const d = await ws.setUpSignal('direct', { to: [s1] }, { as: s2 });
    const r = await ws.ok(['mem', 'watch', '--session', 'Planck', '--once'], { now: at(2) });
    expect(envelopes(SignalReceivedEnvelope, r).map((l) => [l.type, l.signal.signal_id, l.latency_ms, l.session_id])).toEqual([
      ['signal_received', b.signal_id, 2000, s1],
      ['signal_received', d.signal_id, 2000, s1],
    ]);
    expect(receiptsVia(ws, 'watch').map((e) => e.data['signal_id'])).toEqual([b.signal_id, d.signal_id]);
    const again = await ws.run(['mem', 'watch', '--session', 'Planck', '--once'], { now: at(3) });
    expect([again.code, again.stdout]).toEqual([0, '']);
    // The watcher never heartbeats for the session.
    const roster = await ws.okAs(RosterEnvelope, ['mem', 'roster'], { now: at(3) });
    expect(roster.sessions.find((s) => s.session_id === s1)?.last_heartbeat_at).toBe(at(0));
  });

  it('40: a running watcher delivers a new signal from another process exactly once within 1 s; SIGINT exits 130; a restart re-delivers nothing', async () => {
    const ws = await workspace();
    const live = { now: new Date().toISOString() };
    const s1 = await ws.setUpSession({}, live);
    const s2 = await ws.setUpSession({}, live);
    const watcher = startBaton(['--dir', ws.dir, '--json', 'mem', 'watch', '--session', s1], {});
    let out = '';
    watcher.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => watcher.on('exit', (code) => resolve(code)));
    await new Promise((r) => setTimeout(r, 1500));
    const d = (await ws.send('live one', ['--to', s1], { as: s2, now: new Date().toISOString() })).signal;
    const sentAt = Date.now();
    while (!out.includes(d.signal_id) && Date.now() - sentAt < 5000) await new Promise((r) => setTimeout(r, 10));
    expect(Date.now() - sentAt).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 400));
    const lines = jsonLines(out).map((line) => SignalReceivedEnvelope.parse(line));
    expect(lines.filter((l) => l.signal.signal_id === d.signal_id)).toHaveLength(1);
    watcher.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(receiptsVia(ws, 'watch').map((e) => e.data['signal_id'])).toEqual([d.signal_id]);
    const restart = await ws.run(['mem', 'watch', '--session', s1, '--once'], { now: new Date().toISOString() });
    expect([restart.code, restart.stdout]).toEqual([0, '']);
  });

  it('40b: the watcher exits 0 when its session ends', async () => {
    const ws = await workspace();
    const s1 = await ws.setUpSession({}, { now: new Date().toISOString() });
    const watcher = startBaton(['--dir', ws.dir, '--json', 'mem', 'watch', '--session', s1], {});
    const exited = new Promise<number | null>((resolve) => watcher.on('exit', (code) => resolve(code)));
    await new Promise((r) => setTimeout(r, 1200));
    await ws.ok(['session', 'end', s1], { now: new Date().toISOString() });
    expect(await exited).toBe(0);
  });

  it('41: an identity shared by two live sessions is AMBIGUOUS_SESSION', async () => {
    const ws = await workspace();
    await ws.setUpSession({ agent_identity: 'reviewer:docs:a' });
    await ws.setUpSession({ agent_identity: 'reviewer:docs:a' });
    const r = await ws.run(['mem', 'watch', '--session', 'reviewer:docs:a', '--once']);
    expect([r.code, errorEnvelopeOf(r).code]).toEqual([2, 'AMBIGUOUS_SESSION']);
  });
});

describe('the wu prep signal gate (42–46)', () => {
  /** INIT-1 with WU-1 and WU-2, sessions s1 and s2, WU-1 claimed by s1 (built once, copied for each test). */
  const setup42 = sharedWorkspace(async (ws) => {
    await ws.withWus('WU-1', 'WU-2');
    const s1 = await ws.setUpSession();
    const s2 = await ws.setUpSession();
    await ws.claim('WU-1', s1);
    return { s1, s2 };
  });

  it('42: an unread directed signal about the WU blocks prep', async () => {
    const { ws, s1, s2 } = await setup42();
    const d = await ws.setUpSignal('blocker found', { to: [s1], wu: 'WU-1' }, { as: s2 });
    const head = ws.head();
    const r = await ws.run(['wu', 'prep', 'WU-1'], { as: s1 });
    expect(r.code).toBe(2);
    const err = errorEnvelopeOf(r);
    expect(err.code).toBe('UNREAD_DIRECTED_SIGNALS');
    expect(err.details?.['signals']).toEqual([{ signal_id: d.signal_id, sender_identity: s2, intent: 'INFO', requires_ack: false }]);
    expect(err.message).toContain(d.signal_id);
    expect(ws.head()).toBe(head);
  });

  it('43: broadcasts and signals about another WU never block', async () => {
    const { ws, s1, s2 } = await setup42();
    await ws.setUpSignal('all of WU-1', { wu: 'WU-1' }, { as: s2 });
    await ws.setUpSignal('about WU-2', { to: [s1], wu: 'WU-2' }, { as: s2 });
    const r = await ws.run(['wu', 'prep', 'WU-1'], { as: s1 });
    expect(r.code).toBe(0);
    expect(envelope(WuPrepEnvelope, r)).toMatchObject({ type: 'wu_prep', wu_id: 'WU-1', passed: true, reader_identity: s1, overridden_signal_ids: [] });
  });

  it('44: a requires-ack signal blocks until answered, not merely read', async () => {
    const { ws, s1, s2 } = await setup42();
    const d = await ws.setUpSignal('sign off?', { to: [s1], wu: 'WU-1', requires_ack: true }, { as: s2 });
    await ws.ok(['mem', 'inbox'], { as: s1 });
    expect((await ws.run(['wu', 'prep', 'WU-1'], { as: s1 })).code).toBe(2);
    await ws.setUpSignal('yes', { reply_to: d.signal_id, intent: 'AGREE' }, { as: s1 });
    expect((await ws.run(['wu', 'prep', 'WU-1'], { as: s1 })).code).toBe(0);
  });

  it('45: the override needs a reason, is recorded, and leaves the signal unread', async () => {
    const { ws, s1, s2 } = await setup42();
    const d = await ws.setUpSignal('blocker found', { to: [s1], wu: 'WU-1' }, { as: s2 });
    const head = ws.head();
    expect((await ws.run(['wu', 'prep', 'WU-1', '--allow-unread-signals'], { as: s1 })).code).toBe(2);
    expect((await ws.run(['wu', 'prep', 'WU-1', '--reason', 'x'], { as: s1 })).code).toBe(2);
    expect(ws.head()).toBe(head);
    const r = await ws.run(['wu', 'prep', 'WU-1', '--allow-unread-signals', '--reason', 'handled in paired review'], { as: s1 });
    expect(r.code).toBe(0);
    expect(envelope(WuPrepEnvelope, r).overridden_signal_ids).toEqual([d.signal_id]);
    const override = ws.events().at(-1)!;
    expect(override.type).toBe('wu.prep_overridden');
    expect(override.data).toEqual({ wu_id: 'WU-1', session_id: s1, reader_identity: s1, reason: 'handled in paired review', signal_ids: [d.signal_id] });
    const inbox = await ws.inbox(['--no-mark'], { as: s1 });
    expect(inbox.signals).toMatchObject([{ signal_id: d.signal_id, read: false }]);
  });

  it('45b: prep with its override reads the log once: one pass answers the claim check, the gate and the acting session', async () => {
    const { ws, s1, s2 } = await setup42();
    const d = await ws.setUpSignal('blocker found', { to: [s1], wu: 'WU-1' }, { as: s2 });
    const app = new CountingContext({
      dir: ws.dir,
      session: s1,
      env: {},
      output: { mode: 'json', warn: () => undefined },
      names: { dir: '--dir', session: '--session' },
    });
    try {
      const prep = await prepWorkUnit(app, { wu: 'WU-1', allow_unread_signals: true, reason: 'paired review' });
      expect([prep.passed, prep.overridden_signal_ids, app.counting?.reads]).toEqual([true, [d.signal_id], 1]);
    } finally {
      await app.close();
    }
    expect(ws.events().at(-1)).toMatchObject({ type: 'wu.prep_overridden', actor: s1, data: { signal_ids: [d.signal_id], reason: 'paired review' } });
  });

  it('46: without a session the claimant is the reader', async () => {
    const { ws, s1, s2 } = await setup42();
    await ws.setUpSignal('blocker found', { to: [s1], wu: 'WU-1' }, { as: s2 });
    const r = await ws.run(['wu', 'prep', 'WU-1']);
    expect([r.code, errorEnvelopeOf(r).code]).toEqual([2, 'UNREAD_DIRECTED_SIGNALS']);
  });

  it('46b: an initiative-level signal without a WU blocks; an unknown WU is UNKNOWN_ID; no reader passes', async () => {
    const { ws, s1, s2 } = await setup42();
    await ws.setUpSignal('initiative note', { to: [s1], initiative: 'INIT-1' }, { as: s2 });
    expect((await ws.run(['wu', 'prep', 'WU-1'], { as: s1 })).code).toBe(2);
    const unknown = await ws.run(['wu', 'prep', 'WU-9'], { as: s1 });
    expect([unknown.code, errorEnvelopeOf(unknown).code]).toEqual([2, 'UNKNOWN_ID']);
    // work-units.md §13: prep first requires a claim (NOT_CLAIMED). Once claimed, prep with no acting
    // session reads as the claiming session; s2 has no unread directed signal, so the gate passes.
    const unclaimed = await ws.run(['wu', 'prep', 'WU-2']);
    expect([unclaimed.code, errorEnvelopeOf(unclaimed).code]).toEqual([2, 'NOT_CLAIMED']);
    await ws.claim('WU-2', s2);
    const free = await ws.run(['wu', 'prep', 'WU-2']);
    expect(free.code).toBe(0);
    expect(envelope(WuPrepEnvelope, free).checks).toContainEqual({ name: 'signals', passed: true, detail: `no unread directed signals for ${s2}` });
  });
});
