import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isAuthProblem } from '../../projections/tasks/auth-rule.js';
import { shellJoin } from '../../projections/shell-quote.js';
import { InboxEnvelope } from '../../src/app/envelopes/coordination.js';
import { LogStatsEnvelope } from '../../src/app/envelopes/foundation.js';
import { BATON_BIN, batonIn, childEnv, ErrorEnvelope } from '../helpers/cli.js';
import { makeTempDir, removeTempDirs, segmentPaths, sharedSetup } from '../helpers/workspace.js';
import {
  at,
  createTask,
  eventsOfType,
  HOUR,
  ids,
  logBytes,
  MIN,
  OrchestrationResumeEnvelope,
  OrchestrationSessionEnvelope,
  OrchestrationSessionsEnvelope,
  OrchestrationSessionViewEnvelope,
  OrchestrationStatusEnvelope,
  OrchestrationTasksEnvelope,
  parseWith,
  sessionWorkspace,
  setUp,
  status,
  T0,
  T0MS,
  workspace,
  wsAt,
  type Lsp,
  type Ws,
} from './helpers.js';
import type { TransitionInput } from '../../src/app/commands/tasks.js';
import { WizardStatusEnvelope } from './wizard-schema.js';

/** tasks.md §12 T21–T46 (ids, listings, sessions, the last stopping point, resume, concurrency, integrity, output) through the built binary. */
afterAll(removeTempDirs);
const run = promisify(execFile);

function given(): Promise<{ ws: Ws; S: string }> {
  return sessionWorkspace();
}

/** A task of `session` in `waiting_for_user`, with the given checkpoint (set up in-process). */
async function waitingTask(ws: Ws, session: string, label: string, checkpoint: TransitionInput, now = T0): Promise<string> {
  const T = await setUp.task(ws, session, label, { state: 'running', now });
  await setUp.move(ws, T, 'waiting_for_user', { session, now, ...checkpoint });
  return T;
}

/** `$S` with one running task `$T` (built once, copied for each use). */
const oneRunning = sharedSetup('baton-tasks-', async (dir) => {
  const { ws, S } = await sessionWorkspace(dir);
  return { S, T: await setUp.task(ws, S, 'auth', { state: 'running' }) };
});
async function blockable(): Promise<{ ws: Ws; S: string; T: string }> {
  const { dir, made } = await oneRunning();
  return { ws: wsAt(dir), ...made };
}

const checkpointFlags = (id: string, kind: string, summary?: string): TransitionInput => ({
  checkpoint_id: id,
  checkpoint_kind: kind,
  ...(summary !== undefined ? { checkpoint_summary: summary } : {}),
});

describe('ids and filters', () => {
  it('T21: malformed and unknown ids', async () => {
    const ws = await workspace();
    const expectations: [string[], string, string][] = [
      [['task', 'foo'], 'INVALID_INPUT', "Expected task_<id>, got 'foo'"],
      [['task', 'task_nonexistent'], 'UNKNOWN_TASK', 'Task task_nonexistent not found'],
      [['session', 'sess-1'], 'INVALID_INPUT', "Expected session_<id>, got 'sess-1'"],
      [['resume', 'session_nope'], 'UNKNOWN_SESSION', 'Session session_nope not found'],
    ];
    for (const [args, code, message] of expectations) {
      const e = await ws.fail(args);
      expect([e.exit, e.code, e.message], args.join(' ')).toEqual([2, code, message]);
    }
  });

  it('T22: a bad state filter prints one error line', async () => {
    const ws = await workspace();
    const r = await ws.run(['tasks', '--state', 'cosmic_rays']);
    expect(r.code).toBe(2);
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(r.stdout.slice(0, -1).split('\n')).toHaveLength(1);
    const e = ErrorEnvelope.parse(JSON.parse(r.stdout));
    expect(e).toMatchObject({
      v: 1,
      type: 'error',
      code: 'INVALID_INPUT',
      message: "Invalid --state value: 'cosmic_rays'. Allowed: queued, running, waiting_for_user, blocked, completed, failed, cancelled, superseded.",
    });
    expect(e['@timestamp']).toBe(T0);
    expect(r.stdout.startsWith('{"v":1,"type":"error",')).toBe(true);
  });

  it('T23: listing and filters', async () => {
    const { ws, S } = await given();
    const S2 = await setUp.session(ws, { now: at(MIN) });
    const a = await setUp.task(ws, S, 'a');
    const b = await setUp.task(ws, S, 'b', { state: 'running' });
    const c = await setUp.task(ws, S2, 'c', { state: 'running' });
    const list = (args: string[]) => ws.ok(OrchestrationTasksEnvelope, ['tasks', ...args]);
    expect(ids((await list([])).tasks)).toEqual([a, b, c]);
    expect(ids((await list(['--state', 'running'])).tasks)).toEqual([b, c]);
    expect(ids((await list(['--session-id', S2])).tasks)).toEqual([c]);
    const nope = await ws.fail(['tasks', '--session-id', 'session_nope']);
    expect([nope.exit, nope.code, nope.message]).toEqual([2, 'UNKNOWN_SESSION', 'Session session_nope not found']);
  });
});

describe('sessions', () => {
  it('T24: sessions in start order; one session with its tasks and subagents', async () => {
    const { ws, S } = await given();
    const S2 = await setUp.session(ws, { now: at(MIN) });
    const a = await setUp.task(ws, S, 'a', { now: at(MIN) });
    const other = await setUp.task(ws, S2, 'other', { now: at(MIN) });
    const b = await setUp.task(ws, S, 'b', { now: at(MIN) });
    const sub = await setUp.subagent(ws, S, 'integration', a, at(MIN));
    await setUp.subagent(ws, S2, 'integration', other, at(MIN));

    const sessions = await ws.ok(OrchestrationSessionsEnvelope, ['sessions'], { now: at(2 * MIN) });
    expect(sessions.sessions.map((s) => [s.id, s.status, s.installDir])).toEqual([
      [S, 'active', ws.dir],
      [S2, 'active', ws.dir],
    ]);
    const one = await ws.ok(OrchestrationSessionViewEnvelope, ['session', S], { now: at(2 * MIN) });
    expect(one.session.goal).toBe('set up');
    expect(ids(one.tasks)).toEqual([a, b]);
    expect(one.baton.subagents).toEqual([sub.subagent]);
  });

  it('T36: a session without heartbeat is abandoned after its TTL, and a heartbeat revives it', async () => {
    const { ws, S } = await given();
    const atTtl = await ws.ok(OrchestrationSessionsEnvelope, ['sessions'], { now: at(4 * HOUR) });
    expect(atTtl.sessions.map((s) => [s.id, s.status])).toEqual([[S, 'active']]);

    const later = '2026-05-09T16:00:00.001Z';
    const past = await ws.ok(OrchestrationSessionsEnvelope, ['sessions'], { now: later });
    const s = past.sessions[0]!;
    expect(s.status).toBe('abandoned');
    expect(s.baton.stored_status).toBe('active');
    expect(s).not.toHaveProperty('finishedAt');
    const st = await status(ws, { now: later });
    expect(st.lastStoppingPoint.currentSessionId).toBeNull();
    expect(st.lastStoppingPoint.nextAction.kind).toBe('none');

    const beat = await ws.ok(OrchestrationSessionEnvelope, ['session', 'heartbeat', S], { now: at(5 * HOUR) });
    expect(beat.session.status).toBe('active');
    const revived = await ws.ok(OrchestrationSessionsEnvelope, ['sessions'], { now: at(5 * HOUR) });
    expect(revived.sessions.map((x) => [x.id, x.status])).toEqual([[S, 'active']]);
    const current = await status(ws, { now: at(5 * HOUR) });
    expect(current.lastStoppingPoint.currentSessionId).toBe(S);
    expect(current.baton.current_session_status).toBe('active');
  });

  it('T42: an ended session stays ended', async () => {
    const { ws, S } = await given();
    await ws.ok(OrchestrationSessionEnvelope, ['session', 'end', S, '--status', 'failed'], { now: at(MIN) });
    const view = await ws.ok(OrchestrationSessionViewEnvelope, ['session', S], { now: at(MIN) });
    expect(view.session.status).toBe('failed');
    expect(view.session.finishedAt).toBe(1778328060000);

    const before = logBytes(ws);
    await ws.ok(OrchestrationSessionEnvelope, ['session', 'end', S, '--status', 'failed'], { now: at(2 * MIN) });
    expect(logBytes(ws)).toBe(before);
    const succeeded = await ws.fail(['session', 'end', S, '--status', 'succeeded'], { now: at(2 * MIN) });
    expect([succeeded.exit, succeeded.code]).toEqual([2, 'SESSION_ENDED']);
    const beat = await ws.fail(['session', 'heartbeat', S], { now: at(2 * MIN) });
    expect([beat.exit, beat.code]).toEqual([2, 'SESSION_ENDED']);
    const abandoned = await ws.fail(['session', 'end', S, '--status', 'abandoned'], { now: at(2 * MIN) });
    expect([abandoned.exit, abandoned.code]).toEqual([2, 'INVALID_INPUT']);
    expect(logBytes(ws)).toBe(before);
    const after = await ws.ok(OrchestrationSessionViewEnvelope, ['session', S], { now: at(3 * MIN) });
    expect([after.session.status, after.session.finishedAt]).toEqual(['failed', 1778328060000]);
  });
});

describe('the last stopping point', () => {
  it('T25: status in a directory without a store creates nothing', async () => {
    const dir = makeTempDir('baton-nostore-');
    const r = await batonIn(dir, ['--json', 'status'], { cwd: dir, env: { BATON_NOW: T0 } });
    expect(r.code).toBe(0);
    const e = parseWith(OrchestrationStatusEnvelope, JSON.parse(r.stdout), r.stdout);
    expect(e.storeExists).toBe(false);
    expect(e.storePath).toBe(join(dir, '.baton', 'log'));
    const l = e.lastStoppingPoint;
    expect(l.generatedAt).toBe(1778328000000);
    expect([l.currentSessionId, l.currentGoal, l.currentBranch, l.currentWorktree]).toEqual([null, null, null, null]);
    const arrays: (keyof Lsp)[] = [
      'activeTasks',
      'queuedTasks',
      'stoppedTasks',
      'recentlyCompletedTasks',
      'relevantOwnership',
      'pendingChoices',
      'pendingMcpActions',
      'pendingManualVerifications',
    ];
    for (const key of arrays) expect(l[key], key).toEqual([]);
    expect(l.nextAction).toEqual({
      kind: 'none',
      description: 'No active or recently stopped tasks. Nothing to resume.',
      command: ['baton', 'status', '--dir', dir],
    });
    expect(l.resumeCommand).toBe(`baton status --dir ${dir}`);
    expect(existsSync(join(dir, '.baton'))).toBe(false);
  });

  it('T26: the priority chain — waiting, then auth-blocked, then running', async () => {
    const { ws, S } = await given();
    const W = await waitingTask(ws, S, 'w', checkpointFlags('c1', 'user_choice', 'review the proposed events.json'));
    const B = await setUp.task(ws, S, 'blk', { state: 'running' });
    await setUp.move(ws, B, 'blocked', { session: S, reason: 'login expired' });
    await setUp.task(ws, S, 'r', { state: 'running' });
    let st = await status(ws);
    expect(st.lastStoppingPoint.nextAction).toEqual({
      kind: 'await_user_choice',
      description: 'A task is waiting for user input: review the proposed events.json.',
      command: ['baton', 'task', W, '--dir', ws.dir],
    });
    await setUp.move(ws, W, 'cancelled', { session: S });
    st = await status(ws);
    expect(st.lastStoppingPoint.nextAction).toEqual({
      kind: 'fix_auth',
      description: 'Blocked: login expired. Sign in again to resume.',
      command: ['baton', 'task', B, '--dir', ws.dir],
    });
    await setUp.move(ws, B, 'cancelled', { session: S });
    st = await status(ws);
    expect(st.lastStoppingPoint.nextAction).toEqual({
      kind: 'resume',
      description: 'A task is still running. Re-attach or wait for completion.',
      command: ['baton', 'status', '--dir', ws.dir],
    });
  });

  it('T27: MCP and manual-verification checkpoints have their own next actions and pending arrays', async () => {
    const mcp = await given();
    const M = await waitingTask(mcp.ws, mcp.S, 'mcp', checkpointFlags('cp-mcp', 'mcp_install', 'install the MCP server'));
    let l = (await status(mcp.ws)).lastStoppingPoint;
    expect(l.nextAction).toEqual({
      kind: 'await_mcp_action',
      description: 'A task is waiting for an MCP action: install the MCP server.',
      command: ['baton', 'task', M, '--dir', mcp.ws.dir],
    });
    expect(l.pendingMcpActions).toEqual([{ id: 'cp-mcp', kind: 'mcp_install', summary: 'install the MCP server', enteredAt: T0MS }]);
    expect(l.pendingChoices).toEqual([]);
    expect(l.pendingManualVerifications).toEqual([]);

    const ver = await given();
    const V = await waitingTask(ver.ws, ver.S, 'check dashboard', checkpointFlags('cp-ver', 'manual_verification'));
    l = (await status(ver.ws)).lastStoppingPoint;
    expect(l.nextAction).toEqual({
      kind: 'await_verification',
      description: 'A task is waiting for manual verification: check dashboard.',
      command: ['baton', 'task', V, '--dir', ver.ws.dir],
    });
    expect(l.pendingManualVerifications).toEqual([{ id: 'cp-ver', kind: 'manual_verification', enteredAt: T0MS }]);
    expect(l.pendingChoices).toEqual([]);
    expect(l.pendingMcpActions).toEqual([]);
  });

  it('T28: a checkpoint of another kind awaits a user choice and is in no pending array', async () => {
    const { ws, S } = await given();
    const T = await waitingTask(ws, S, 'license', checkpointFlags('cp-lic', 'license_review', 'review the license'));
    const l = (await status(ws)).lastStoppingPoint;
    expect(l.nextAction).toEqual({
      kind: 'await_user_choice',
      description: 'A task is waiting for user input: review the license.',
      command: ['baton', 'task', T, '--dir', ws.dir],
    });
    expect([l.pendingChoices, l.pendingMcpActions, l.pendingManualVerifications]).toEqual([[], [], []]);
  });

  it('T29: the auth rule matches whole words only', async () => {
    const yes = [
      'login expired',
      'Please sign in again',
      '401 Unauthorized',
      'missing credentials',
      'OAuth token expired',
      'expired access token',
      'auth failed',
    ];
    const no = ['author field missing', 'token budget exceeded', 'OAuth scope missing', 'authority unreachable', 'catalog index stale', 'tokens: 1200'];
    // The rule, for every reason; then `status` through the binary for a sample of them (one of each kind always).
    for (const reason of yes) expect(isAuthProblem(reason), reason).toBe(true);
    for (const reason of no) expect(isAuthProblem(reason), reason).toBe(false);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...yes, ...no), async (reason) => {
        const { ws, S, T } = await blockable();
        await setUp.move(ws, T, 'blocked', { session: S, reason });
        const next = (await status(ws)).lastStoppingPoint.nextAction;
        if (yes.includes(reason)) {
          expect(next, reason).toEqual({
            kind: 'fix_auth',
            description: `Blocked: ${reason}. Sign in again to resume.`,
            command: ['baton', 'task', T, '--dir', ws.dir],
          });
        } else {
          expect(next, reason).toEqual({
            kind: 'inspect_failure',
            description: `Blocked: ${reason}. Inspect the task and address the blocker.`,
            command: ['baton', 'task', T, '--dir', ws.dir],
          });
        }
      }),
      { numRuns: 5, examples: [[yes[0]!], [no[0]!]] },
    );
  });

  it('T30: the 24-hour window is inclusive', async () => {
    const { ws, S } = await given();
    const F = await setUp.task(ws, S, 'f', { state: 'running' });
    const C = await setUp.task(ws, S, 'c', { state: 'running' });
    await setUp.move(ws, F, 'failed', { session: S });
    await setUp.move(ws, C, 'completed', { session: S });
    const edge = (await status(ws, { now: at(24 * HOUR) })).lastStoppingPoint;
    expect(ids(edge.stoppedTasks)).toEqual([F]);
    expect(ids(edge.recentlyCompletedTasks)).toEqual([C]);
    const past = (await status(ws, { now: '2026-05-10T12:00:00.001Z' })).lastStoppingPoint;
    expect(past.stoppedTasks).toEqual([]);
    expect(past.recentlyCompletedTasks).toEqual([]);
  });

  it('T31: active tasks have no age limit, whether or not their session is live', async () => {
    const { ws, S } = await given();
    const ended = await setUp.session(ws);
    const R = await setUp.task(ws, S, 'long run', { state: 'running' });
    const E = await setUp.task(ws, ended, 'left running', { state: 'running' });
    await setUp.endSession(ws, ended);
    const month = '2026-06-09T12:00:00.000Z';
    // $S is abandoned by then, the other session ended: both tasks are still active.
    let l = (await status(ws, { now: month })).lastStoppingPoint;
    expect(l.currentSessionId).toBeNull();
    expect(ids(l.activeTasks).sort()).toEqual([R, E].sort());
    // $S live again (a heartbeat a minute before): its task is still active.
    await ws.ok(OrchestrationSessionEnvelope, ['session', 'heartbeat', S], { now: '2026-06-09T11:59:00.000Z' });
    l = (await status(ws, { now: month })).lastStoppingPoint;
    expect(l.currentSessionId).toBe(S);
    expect(ids(l.activeTasks).sort()).toEqual([R, E].sort());
  });

  it('T32: buckets are ordered by update time, ties by the later change', async () => {
    const { ws, S } = await given();
    const A = await waitingTask(ws, S, 'a-task', checkpointFlags('ca', 'user_choice', 'a'), at(MIN));
    const B = await waitingTask(ws, S, 'b-task', checkpointFlags('cb', 'user_choice', 'b'), at(2 * MIN));
    let l = (await status(ws, { now: at(3 * MIN) })).lastStoppingPoint;
    expect(ids(l.activeTasks)).toEqual([B, A]);
    expect(l.nextAction.description.endsWith(': b.')).toBe(true);

    const X = await setUp.task(ws, S, 'x', { state: 'running' });
    const Y = await setUp.task(ws, S, 'y', { state: 'running' });
    const same = at(4 * MIN);
    await setUp.move(ws, Y, 'failed', { session: S, now: same });
    await setUp.move(ws, X, 'failed', { session: S, now: same });
    l = (await status(ws, { now: at(5 * MIN) })).lastStoppingPoint;
    expect(ids(l.stoppedTasks)).toEqual([X, Y]);
  });

  it('T33: queued tasks are visible and the first one is the next action', async () => {
    const { ws, S } = await given();
    const Q1 = await setUp.task(ws, S, 'first');
    const Q2 = await setUp.task(ws, S, 'second', { now: at(MIN) });
    const l = (await status(ws, { now: at(2 * MIN) })).lastStoppingPoint;
    expect(ids(l.queuedTasks)).toEqual([Q1, Q2]);
    expect(l.activeTasks).toEqual([]);
    expect(l.nextAction).toEqual({
      kind: 'resume',
      description: 'A task is queued and has not started: first.',
      command: ['baton', 'task', Q1, '--dir', ws.dir],
    });
  });

  it('T34: a live session with nothing running is resumed by re-running the agent', async () => {
    const { ws, S } = await given();
    const l = (await status(ws)).lastStoppingPoint;
    expect(l.nextAction).toEqual({
      kind: 'resume',
      description: 'Session is active but no task is running. Re-run the agent to continue.',
      command: ['baton', 'session', S, '--dir', ws.dir],
    });
    expect([l.currentSessionId, l.currentGoal, l.currentBranch]).toEqual([S, 'set up', 'main']);
  });

  it('T35: with no live session, the most recent stop is the next action', async () => {
    const { ws, S } = await given();
    const T = await setUp.task(ws, S, 'build', { state: 'running' });
    await setUp.move(ws, T, 'failed', { session: S });
    await setUp.endSession(ws, S);
    const l = (await status(ws, { now: at(MIN) })).lastStoppingPoint;
    expect(l.nextAction).toEqual({
      kind: 'inspect_failure',
      description: `Most recent stop: build (failed). Inspect with \`baton task ${T}\`.`,
      command: ['baton', 'task', T, '--dir', ws.dir],
    });
    expect(l.currentSessionId).toBeNull();
  });

  it('T37: a running task of an abandoned session is an orphan to inspect', async () => {
    const { ws, S } = await given();
    const T = await setUp.task(ws, S, 'migrate', { state: 'running' });
    const l = (await status(ws, { now: '2026-05-09T17:00:00.000Z' })).lastStoppingPoint;
    expect(l.nextAction).toEqual({
      kind: 'inspect_failure',
      description: `Task migrate is running but its session ${S} is abandoned. Inspect it, then cancel or supersede it.`,
      command: ['baton', 'task', T, '--dir', ws.dir],
    });
  });

  it('T38: the scope session narrows status and resume', async () => {
    const ws = await workspace();
    const A = await setUp.session(ws, { goal: 'session A' });
    const WA = await waitingTask(ws, A, 'a plan', checkpointFlags('cpa', 'user_choice', 'review A plan'));
    const B = await setUp.session(ws, { now: at(MIN) });
    const RB = await setUp.task(ws, B, 'b run', { state: 'running', now: at(MIN) });
    const now = at(2 * MIN);

    const all = await status(ws, { now });
    expect(all.lastStoppingPoint.currentSessionId).toBe(B);
    expect(ids(all.lastStoppingPoint.activeTasks).sort()).toEqual([WA, RB].sort());
    expect(all.baton.scope_session_id).toBeNull();

    const scoped = await status(ws, { now, session: A });
    const l = scoped.lastStoppingPoint;
    expect(l.currentSessionId).toBe(A);
    expect(l.currentGoal).toBe('session A');
    expect(ids(l.activeTasks)).toEqual([WA]);
    expect(l.nextAction.description).toContain('review A plan');
    expect(scoped.baton.scope_session_id).toBe(A);

    const resumed = await ws.ok(OrchestrationResumeEnvelope, ['resume', A], { now });
    expect(resumed.sessionId).toBe(A);
    expect(resumed.executed).toBe(false);
    expect(resumed.command).toEqual(l.nextAction.command);
    expect(resumed.description).toBe(l.nextAction.description);
  });

  it('T39: the resume command quotes the workspace path for a POSIX shell', async () => {
    const parent = makeTempDir('baton-quote-');
    for (const [name, quoted] of [
      ['my project', `'${parent}/my project'`],
      ["it's", `'${parent}/it'\\''s'`],
    ] as const) {
      const dir = join(parent, name);
      mkdirSync(dir);
      const ws = await workspace('', dir);
      const l = (await status(ws)).lastStoppingPoint;
      expect(l.resumeCommand.endsWith(`--dir ${quoted}`), l.resumeCommand).toBe(true);
      expect(l.nextAction.command.at(-1)).toBe(dir);
    }
  });

  it('T41: relevant ownership is the deduplicated ownership of the buckets, in order', async () => {
    const { ws, S } = await given();
    const O = await setUp.task(ws, S, 'old', { state: 'running' });
    await setUp.own(ws, S, O, { file: 'x.ts' });
    await setUp.move(ws, O, 'completed', { session: S });
    const R = await setUp.task(ws, S, 'run', { state: 'running' });
    await setUp.own(ws, S, R, { branch: 'feat/a' });
    const late = '2026-05-11T12:01:00.000Z';
    const C = await setUp.task(ws, S, 'pr', { state: 'running', now: late });
    const url = 'https://github.com/acme/app/pull/7';
    await setUp.own(ws, S, C, { pr: url }, late);
    await setUp.own(ws, S, C, { branch: 'feat/a' }, late);
    await setUp.move(ws, C, 'completed', { session: S, now: late });
    const l = (await status(ws, { now: '2026-05-11T12:02:00.000Z' })).lastStoppingPoint;
    expect(l.relevantOwnership).toEqual([
      { kind: 'branch', name: 'feat/a' },
      { kind: 'pull_request', number: 7, repo: 'acme/app', url },
    ]);
    expect(ids(l.recentlyCompletedTasks)).toEqual([C]);
  });
});

describe('resume --execute', () => {
  it('T40: resume runs the command without a shell and exits with the child’s code', async () => {
    const { ws, S } = await given();
    const config = join(ws.dir, '.baton', 'config.yaml');
    const base = existsSync(config) ? readFileSync(config, 'utf8') : '';
    const withInvocation = (argv: string[]): void => writeFileSync(config, `${base}\nresume:\n  invocation: ${JSON.stringify(argv)}\n`);

    withInvocation(['sh', '-c', 'exit 7', 'sh']);
    let r = await ws.run(['resume', S, '--execute']);
    expect(r.code).toBe(7);
    expect(r.lines).toHaveLength(1);
    const envelope = parseWith(OrchestrationResumeEnvelope, r.lines[0], r.stdout);
    expect(envelope).toMatchObject({ executed: true, sessionId: S, command: ['sh', '-c', 'exit 7', 'sh', 'session', S, '--dir', ws.dir] });

    withInvocation(['sh', '-c', 'kill -TERM $$', 'sh']);
    expect((await ws.run(['resume', S, '--execute'])).code).toBe(143);

    withInvocation(['/nonexistent/bin']);
    r = await ws.run(['resume', S, '--execute']);
    expect(r.code).toBe(1);
    expect(r.lines).toHaveLength(2);
    expect(parseWith(OrchestrationResumeEnvelope, r.lines[0], r.stdout).executed).toBe(true);
    const err = ErrorEnvelope.parse(r.lines[1]);
    expect(err.code).toBe('SPAWN_FAILED');
    expect(err.message.startsWith('Failed to spawn resume command:')).toBe(true);

    withInvocation(['sh', '-c', 'printf %s "$1"', 'sh', 'a;b $(id)']);
    r = await ws.run(['resume', S, '--execute']);
    expect(r.code).toBe(0);
    expect(r.stdout.slice(r.stdout.indexOf('\n') + 1)).toBe('a;b $(id)');
  });
});

describe('concurrency and integrity', () => {
  /** `$S` with tasks 'one' and 'two' (built once, copied for each use). */
  const twoTasks = sharedSetup('baton-tasks-', async (dir) => {
    const { ws, S } = await sessionWorkspace(dir);
    await setUp.task(ws, S, 'one');
    await setUp.task(ws, S, 'two');
    return S;
  });

  it('T43: concurrent transitions — one wins; concurrent creates get distinct, contiguous seqs', async () => {
    const { ws, S } = await given();
    const T = await setUp.task(ws, S, 'race', { state: 'running' });
    const outcomes = await Promise.all(
      (['completed', 'failed'] as const).map(async (to) => {
        const r = await ws.run(['task', 'transition', T, to], { session: S });
        return { to, r };
      }),
    );
    expect(outcomes.map((o) => o.r.code).sort()).toEqual([0, 2]);
    const winner = outcomes.find((o) => o.r.code === 0)!;
    const loser = outcomes.find((o) => o.r.code === 2)!;
    const error = ErrorEnvelope.parse(loser.r.lines.at(-1));
    expect(error.code).toBe('ILLEGAL_TRANSITION');
    expect(error.message).toBe(`Task ${T} is already terminal in state '${winner.to}' — terminal tasks cannot transition.`);
    const terminal = eventsOfType(ws, 'task.transitioned', `task/${T}`);
    expect(terminal.map((e) => e.data['to'])).toEqual([winner.to]);

    const head = eventsOfType(ws, 'task.created').length;
    const created = await Promise.all(Array.from({ length: 8 }, (_, i) => createTask(ws, S, `t${i}`)));
    expect(new Set(created).size).toBe(8);
    const events = eventsOfType(ws, 'task.created').slice(head);
    expect(events.map((e) => e.data['task_id']).sort()).toEqual([...created].sort());
    const seqs = events.map((e) => e.seq).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 8 }, (_, i) => seqs[0]! + i));
  });

  it('processes transitioning different tasks of one session at once lose nothing', async () => {
    const { ws, S } = await given();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await setUp.task(ws, S, `parallel ${i}`, { state: 'running' }));
    // Six processes, each moving its own task of the same session, all at once.
    const targets = ['completed', 'failed', 'blocked', 'completed', 'cancelled', 'waiting_for_user'] as const;
    const runs = await Promise.all(ids.map((id, i) => ws.run(['task', 'transition', id, targets[i]!], { session: S })));
    expect(runs.map((r) => r.code)).toEqual(ids.map(() => 0));
    for (const [i, id] of ids.entries()) {
      const moves = eventsOfType(ws, 'task.transitioned', `task/${id}`);
      expect(moves.map((e) => [e.data['from'], e.data['to']])).toEqual([['running', targets[i]]]);
    }
  });

  it('T44: an altered 3rd line makes status, tasks and task create exit 3 naming seq 3, bytes unchanged', async () => {
    for (const alter of [
      // A well-formed line whose content no longer matches its hash.
      (line: string): string => line.replace('"label":"two"', '"label":"TWO"'),
      // A line that is no longer JSON.
      (line: string): string => line.slice(0, 40) + '#garbage',
    ]) {
      const { dir, made: S } = await twoTasks();
      const ws = wsAt(dir);
      const [segment] = segmentPaths(ws.dir);
      const lines = readFileSync(segment!, 'utf8').split('\n');
      const altered = alter(lines[2]!);
      expect(altered).not.toBe(lines[2]);
      lines[2] = altered;
      writeFileSync(segment!, lines.join('\n'));
      const before = logBytes(ws);
      for (const args of [['status'], ['tasks'], ['task', 'create', '--label', 'x']]) {
        const e = await ws.fail(args, { session: S });
        expect([e.exit, e.code], args.join(' ')).toEqual([3, 'LOG_CORRUPT']);
        expect(e.message).toMatch(/\bseq 3\b/);
      }
      expect(logBytes(ws)).toBe(before);
    }
  });
});

describe('output mode', () => {
  it('T45: JSON when piped, human with --human, JSON with --json on a TTY', async () => {
    const ws = await workspace();
    const baton = shellJoin([process.execPath, BATON_BIN]);
    const piped = await run('/bin/sh', ['-c', `${baton} --dir ${shellJoin([ws.dir])} tasks | cat`], { cwd: ws.dir, env: childEnv({ BATON_NOW: T0 }) });
    const pipedLines = piped.stdout.trim().split('\n');
    expect(pipedLines).toHaveLength(1);
    expect(parseWith(OrchestrationTasksEnvelope, JSON.parse(pipedLines[0]!), piped.stdout).type).toBe('orchestration_tasks');

    const human = await run('/bin/sh', ['-c', `${baton} --dir ${shellJoin([ws.dir])} --human tasks | cat`], { cwd: ws.dir, env: childEnv({ BATON_NOW: T0 }) });
    expect(human.stdout).toBe('No tasks recorded for this workspace.\n');

    // A real terminal: `script` gives the command a pseudo-TTY.
    const onTty = (flags: string) =>
      run('script', ['-qec', `${baton} --dir ${shellJoin([ws.dir])} ${flags} tasks`, '/dev/null'], { cwd: ws.dir, env: childEnv({ BATON_NOW: T0 }) }).then(
        (r) => r.stdout.replace(/\r\n/g, '\n').trim(),
      );
    const json = await onTty('--json');
    expect(parseWith(OrchestrationTasksEnvelope, JSON.parse(json), json).tasks).toEqual([]);
    // Without --json the same terminal gets human output, so the TTY is real.
    expect(await onTty('')).toBe('No tasks recorded for this workspace.');
  });
});

describe('status extensions', () => {
  it('T46: initiatives, unread signals, integrity count; status marks nothing read and parses as the wizard', async () => {
    const { ws, S } = await given();
    const initiative = await ws.run(['initiative', 'create', 'INIT-1', '--title', 'One', '--lanes', 'L1']);
    expect(initiative.code).toBe(0);
    const wu = await ws.run(['wu', 'create', 'WU-1', '--initiative', 'INIT-1', '--lane', 'L1', '--title', 'First']);
    expect(wu.code).toBe(0);
    const sender = await setUp.session(ws);
    const sent = await ws.run(['mem', 'signal', 'please review', '--to', S], { session: sender });
    expect(sent.code).toBe(0);

    const r = await ws.run(['status'], { session: S });
    expect(r.code).toBe(0);
    const st = parseWith(OrchestrationStatusEnvelope, r.lines.at(-1), r.stdout);
    expect(st.baton.initiatives[0]!.initiative).toBe('INIT-1');
    expect(st.baton.initiatives[0]!.next_safe_actions[0]!['type']).toBe('launch_wu');
    expect(st.baton.unread_signals).toEqual({ reader: S, count: 1 });
    expect(st.baton.integrity_finding_count).toBe(0);

    const inbox = parseWith(InboxEnvelope, (await ws.run(['mem', 'inbox', '--for', S])).lines.at(-1), 'mem inbox');
    expect(inbox.signals).toHaveLength(1);
    expect(inbox.signals[0]!['read']).toBe(false);

    const wizard = WizardStatusEnvelope.safeParse(JSON.parse(r.stdout));
    expect(wizard.success, wizard.success ? '' : wizard.error.message).toBe(true);

    // `replay --view last-stopping-point` at the head is the same status (initiatives included).
    const head = (await ws.ok(LogStatsEnvelope, ['log', 'stats'])).head_seq;
    const replayed = await ws.ok(OrchestrationStatusEnvelope, ['replay', '--view', 'last-stopping-point', '--to', String(head)], { session: S });
    expect(replayed.baton.initiatives).toEqual(st.baton.initiatives);
    expect(replayed.lastStoppingPoint).toEqual(st.lastStoppingPoint);
  });
});
