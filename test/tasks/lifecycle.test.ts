import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, sharedSetup } from '../helpers/workspace.js';
import { AppendedEnvelope } from '../../src/app/envelopes/foundation.js';
import {
  at,
  eventsOfType,
  HOUR,
  logBytes,
  MIN,
  move,
  OrchestrationSessionViewEnvelope,
  OrchestrationStatusEnvelope,
  OrchestrationSubagentEnvelope,
  OrchestrationTaskEnvelope,
  refuseMove,
  sessionWorkspace,
  setUp,
  showTask,
  T0MS,
  wsAt,
  type Ws,
} from './helpers.js';

/** tasks.md §12 T02–T20, T47–T50 through the built binary, one test per scenario. */
afterAll(removeTempDirs);

/** A fresh workspace with `$S` = `@T0 b session start --goal "set up" --branch main`. */
function given(): Promise<{ ws: Ws; S: string }> {
  return sessionWorkspace();
}

describe('the lifecycle messages', () => {
  it('T02: a terminal task names its terminal state', async () => {
    const { ws, S } = await given();
    const T = await setUp.task(ws, S, 't', { state: 'running' });
    await setUp.move(ws, T, 'completed', { session: S });
    const before = logBytes(ws);
    const e = await refuseMove(ws, T, 'running', { session: S });
    expect(e.exit).toBe(2);
    expect(e.code).toBe('ILLEGAL_TRANSITION');
    expect(e.message).toBe(`Task ${T} is already terminal in state 'completed' — terminal tasks cannot transition.`);
    expect(e.details).toEqual({ task_id: T, from: 'completed', to: 'running' });
    expect(logBytes(ws)).toBe(before);
  });

  it('T03: queued → completed is not allowed; queued → cancelled is', async () => {
    const { ws, S } = await given();
    const T = await setUp.task(ws, S, 't');
    const before = logBytes(ws);
    const e = await refuseMove(ws, T, 'completed', { session: S });
    expect([e.exit, e.code]).toEqual([2, 'ILLEGAL_TRANSITION']);
    expect(e.message).toBe(`Task ${T} cannot transition from 'queued' to 'completed' — not in the allowed transition set.`);
    expect(logBytes(ws)).toBe(before);
    expect((await move(ws, T, 'cancelled', { session: S })).state).toBe('cancelled');
  });

  it('T04: the identity move is refused with the not-allowed form, and appends nothing', async () => {
    const { ws, S } = await given();
    const T = await setUp.task(ws, S, 't', { state: 'running' });
    const before = logBytes(ws);
    const e = await refuseMove(ws, T, 'running', { session: S });
    expect([e.exit, e.code]).toEqual([2, 'ILLEGAL_TRANSITION']);
    expect(e.message).toBe(`Task ${T} cannot transition from 'running' to 'running' — not in the allowed transition set.`);
    expect(logBytes(ws)).toBe(before);
  });
});

describe('creating tasks', () => {
  it('T05: create defaults', async () => {
    const { ws, S } = await given();
    const r = await ws.run(['task', 'create', '--label', 'scan'], { session: S });
    expect(r.code).toBe(0);
    const e = OrchestrationTaskEnvelope.parse(r.lines.at(-1));
    expect(e.type).toBe('orchestration_task');
    expect(e.task.id).toMatch(/^task_[0-9a-f]{24}$/);
    expect(e.task).toMatchObject({
      sessionId: S,
      label: 'scan',
      state: 'queued',
      ownership: [],
      subagentKind: null,
      createdAt: 1778328000000,
      updatedAt: 1778328000000,
      startedAt: null,
    });
    for (const key of ['waitingFor', 'blockedReason', 'result']) expect(e.task).not.toHaveProperty(key);
  });

  it('T06: a task created running has startedAt = createdAt', async () => {
    const { ws, S } = await given();
    const e = await ws.ok(OrchestrationTaskEnvelope, ['task', 'create', '--label', 'scan', '--state', 'running'], { session: S });
    expect(e.task.state).toBe('running');
    expect(e.task.startedAt).toBe(1778328000000);
    expect(e.task.createdAt).toBe(1778328000000);
  });

  it('T07: no task is created in any state but queued or running', async () => {
    const { ws, S } = await given();
    const before = logBytes(ws);
    for (const state of ['completed', 'waiting_for_user', 'blocked', 'failed', 'cancelled', 'superseded']) {
      const e = await ws.fail(['task', 'create', '--label', 'x', '--state', state], { session: S });
      expect([e.exit, e.code], state).toEqual([2, 'INVALID_INPUT']);
      expect(e.message).toBe(`A task can only be created queued or running; got '${state}'.`);
      expect(logBytes(ws)).toBe(before);
    }
    expect((await ws.fail(['task', 'create', '--label', 'x', '--state', 'bogus'], { session: S })).exit).toBe(2);
    expect(logBytes(ws)).toBe(before);
  });

  it('T08: the owning session is checked', async () => {
    const { ws, S } = await given();
    const before = logBytes(ws);
    const none = await ws.fail(['task', 'create', '--label', 'x']);
    expect([none.exit, none.message]).toEqual([2, '--session is required (or set BATON_SESSION)']);
    const nope = await ws.fail(['task', 'create', '--label', 'x'], { session: 'session_nope' });
    expect([nope.exit, nope.code, nope.message]).toEqual([2, 'UNKNOWN_SESSION', 'Session session_nope not found']);
    expect(logBytes(ws)).toBe(before);
    await setUp.endSession(ws, S);
    const afterEnd = logBytes(ws);
    const ended = await ws.fail(['task', 'create', '--label', 'x'], { session: S });
    expect([ended.exit, ended.code]).toEqual([2, 'SESSION_ENDED']);
    expect(ended.message.startsWith(`Session ${S} has ended in status 'succeeded'`)).toBe(true);
    expect(logBytes(ws)).toBe(afterEnd);
  });

  it('T09: the parent is checked', async () => {
    const { ws, S } = await given();
    const S2 = await setUp.session(ws);
    const before = logBytes(ws);
    const nope = await ws.fail(['task', 'create', '--label', 'c', '--parent', 'task_nope'], { session: S });
    expect([nope.exit, nope.message]).toEqual([2, 'Task task_nope not found']);
    expect(logBytes(ws)).toBe(before);
    const P2 = await setUp.task(ws, S2, 'other');
    const beforeOther = logBytes(ws);
    expect((await ws.fail(['task', 'create', '--label', 'c', '--parent', P2], { session: S })).exit).toBe(2);
    expect(logBytes(ws)).toBe(beforeOther);
    const P = await setUp.task(ws, S, 'parent');
    const child = await ws.ok(OrchestrationTaskEnvelope, ['task', 'create', '--label', 'c', '--parent', P], { session: S });
    expect(child.task.parentTaskId).toBe(P);
  });
});

describe('what a transition records', () => {
  it('T10: startedAt is set once', async () => {
    const { ws, S } = await given();
    const T = await setUp.task(ws, S, 'q');
    await move(ws, T, 'running', { session: S, now: at(MIN) });
    await move(ws, T, 'waiting_for_user', { session: S, now: at(2 * MIN) });
    const t = await move(ws, T, 'running', { session: S, now: at(4 * HOUR) });
    expect(t.startedAt).toBe(1778328060000);
    expect(t.updatedAt).toBe(1778342400000);
    expect(t).not.toHaveProperty('waitingFor');
    expect((await showTask(ws, T)).task).toMatchObject({ startedAt: 1778328060000, updatedAt: 1778342400000 });
  });

  it('T11: a checkpoint is set on waiting and cleared on leaving', async () => {
    const { ws, S } = await given();
    const T = await setUp.task(ws, S, 'r', { state: 'running' });
    const w = await move(ws, T, 'waiting_for_user', {
      session: S,
      now: at(MIN),
      extra: ['--checkpoint-id', 'cp1', '--checkpoint-kind', 'event_plan_confirm', '--checkpoint-summary', 'review plan'],
    });
    expect(w.waitingFor).toEqual({ id: 'cp1', kind: 'event_plan_confirm', summary: 'review plan', enteredAt: 1778328060000 });
    const r = await move(ws, T, 'running', { session: S, now: at(2 * MIN) });
    expect(r).not.toHaveProperty('waitingFor');
    expect((await showTask(ws, T)).task).not.toHaveProperty('waitingFor');
  });

  it('T12: a blocked reason is set on blocking and cleared on leaving', async () => {
    const { ws, S } = await given();
    const T = await setUp.task(ws, S, 'r', { state: 'running' });
    expect((await move(ws, T, 'blocked', { session: S, extra: ['--reason', 'network unreachable'] })).blockedReason).toBe('network unreachable');
    expect(await move(ws, T, 'running', { session: S })).not.toHaveProperty('blockedReason');
    expect(await move(ws, T, 'blocked', { session: S })).not.toHaveProperty('blockedReason');
  });

  it('T13: a flag without effect for the target is refused, and appends nothing', async () => {
    const { ws, S } = await given();
    const T = await setUp.task(ws, S, 'r', { state: 'running' });
    const U = await setUp.task(ws, S, 'u');
    const cases: [string, string[]][] = [
      ['blocked', ['--checkpoint-id', 'a', '--checkpoint-kind', 'user_choice']],
      ['waiting_for_user', ['--checkpoint-kind', 'user_choice']],
      ['failed', ['--superseded-by', U]],
      ['completed', ['--error-class', 'internal', '--error-message', 'm']],
      ['waiting_for_user', ['--summary', 's']],
    ];
    for (const [to, extra] of cases) {
      const before = logBytes(ws);
      const e = await refuseMove(ws, T, to, { session: S, extra });
      expect(e.exit, `${to} ${extra.join(' ')}`).toBe(2);
      expect(logBytes(ws)).toBe(before);
    }
    expect((await showTask(ws, T)).task.state).toBe('running');
  });

  it('T14: results record the outcome, summary, error and finish time', async () => {
    const { ws, S } = await given();
    const T = await setUp.task(ws, S, 'r', { state: 'running' });
    const failed = await move(ws, T, 'failed', {
      session: S,
      now: at(2 * MIN),
      extra: ['--summary', 'tests red', '--error-class', 'validation', '--error-message', '3 failing'],
    });
    expect(failed.result).toEqual({ outcome: 'failed', summary: 'tests red', error: { message: '3 failing', class: 'validation' }, finishedAt: 1778328120000 });
    const C = await setUp.task(ws, S, 'c', { state: 'running' });
    const completed = await move(ws, C, 'completed', { session: S, now: at(3 * MIN) });
    expect(completed.result).toEqual({ outcome: 'completed', finishedAt: T0MS + 3 * MIN });
  });

  it('T15: an unknown error class is refused, and appends nothing', async () => {
    const { ws, S } = await given();
    const T = await setUp.task(ws, S, 'r', { state: 'running' });
    const before = logBytes(ws);
    const e = await refuseMove(ws, T, 'failed', { session: S, extra: ['--error-class', 'cosmic_rays', '--error-message', 'm'] });
    expect([e.exit, e.code]).toEqual([2, 'INVALID_INPUT']);
    expect(logBytes(ws)).toBe(before);
  });

  it('T16: superseded-by must name another existing task', async () => {
    const { ws, S } = await given();
    const T = await setUp.task(ws, S, 'r', { state: 'running' });
    const before = logBytes(ws);
    const nope = await refuseMove(ws, T, 'superseded', { session: S, extra: ['--superseded-by', 'task_nope'] });
    expect([nope.exit, nope.message]).toEqual([2, 'Task task_nope not found']);
    expect((await refuseMove(ws, T, 'superseded', { session: S, extra: ['--superseded-by', T] })).exit).toBe(2);
    expect(logBytes(ws)).toBe(before);
    const U = await setUp.task(ws, S, 'u');
    const sup = await move(ws, T, 'superseded', { session: S, extra: ['--superseded-by', U] });
    expect(sup.supersededBy).toBe(U);
    expect(sup.result?.outcome).toBe('superseded');
  });
});

describe('ownership', () => {
  it('T17: adding the same ownership twice appends once and keeps updatedAt', async () => {
    const { ws, S } = await given();
    const T = await setUp.task(ws, S, 'o');
    const a = await ws.ok(OrchestrationTaskEnvelope, ['task', 'own', T, '--branch', 'feat/x'], { session: S, now: at(MIN) });
    const b = await ws.ok(OrchestrationTaskEnvelope, ['task', 'own', T, '--branch', 'feat/x'], { session: S, now: at(2 * MIN) });
    for (const e of [a, b]) {
      expect(e.task.ownership).toEqual([{ kind: 'branch', name: 'feat/x' }]);
      expect(e.task.updatedAt).toBe(1778328060000);
    }
    expect(eventsOfType(ws, 'task.ownership_added')).toHaveLength(1);
  });

  it('T18: pull requests are derived from the URL and updated in place', async () => {
    const { ws, S } = await given();
    const T = await setUp.task(ws, S, 'o');
    const url = 'https://github.com/acme/app/pull/42';
    await ws.ok(OrchestrationTaskEnvelope, ['task', 'own', T, '--branch', 'feat/pr'], { session: S });
    const open = await ws.ok(OrchestrationTaskEnvelope, ['task', 'own', T, '--pr', url, '--pr-state', 'open'], { session: S });
    expect(open.task.ownership[1]).toEqual({ kind: 'pull_request', number: 42, repo: 'acme/app', url, state: 'open' });
    await ws.ok(OrchestrationTaskEnvelope, ['task', 'own', T, '--file', 'src/x.ts'], { session: S });
    const eventsBefore = eventsOfType(ws, 'task.ownership_added').length;
    const merged = await ws.ok(OrchestrationTaskEnvelope, ['task', 'own', T, '--pr', url, '--pr-state', 'merged'], { session: S });
    expect(merged.task.ownership).toEqual([
      { kind: 'branch', name: 'feat/pr' },
      { kind: 'pull_request', number: 42, repo: 'acme/app', url, state: 'merged' },
      { kind: 'file', path: 'src/x.ts' },
    ]);
    expect(merged.task.ownership.filter((o) => o.kind === 'pull_request')).toHaveLength(1);
    expect(eventsOfType(ws, 'task.ownership_added')).toHaveLength(eventsBefore + 1);
    const before = logBytes(ws);
    for (const flags of [
      ['--pr', 'https://example.com/x'],
      ['--pr', 'https://github.com/acme/app/pull/0'],
      ['--pr', url, '--pr-state', 'draft'],
    ]) {
      expect((await ws.fail(['task', 'own', T, ...flags], { session: S })).exit, flags.join(' ')).toBe(2);
    }
    expect(logBytes(ws)).toBe(before);
  });

  it('T19: exactly one ownership kind per call', async () => {
    const { ws, S } = await given();
    const T = await setUp.task(ws, S, 'o');
    const before = logBytes(ws);
    expect((await ws.fail(['task', 'own', T], { session: S })).exit).toBe(2);
    expect((await ws.fail(['task', 'own', T, '--branch', 'a', '--file', 'b'], { session: S })).exit).toBe(2);
    expect(logBytes(ws)).toBe(before);
  });
});

describe('subagents', () => {
  it('T20: subagents start, finish once, and need a root task of their session', async () => {
    const { ws, S } = await given();
    const S2 = await setUp.session(ws);
    const T = await setUp.task(ws, S, 'root');
    const T2 = await setUp.task(ws, S2, 'other');
    const started = await ws.ok(OrchestrationSubagentEnvelope, ['subagent', 'start', '--kind', 'instrumentation', '--root-task', T], { session: S });
    expect(started.type).toBe('orchestration_subagent');
    expect(started.subagent.id).toMatch(/^subagent_[0-9a-f]{24}$/);
    expect(started.subagent).toMatchObject({ sessionId: S, rootTaskId: T, kind: 'instrumentation', finishedAt: null });
    const id = started.subagent.id;
    const finished = await ws.ok(OrchestrationSubagentEnvelope, ['subagent', 'finish', id], { session: S, now: at(MIN) });
    expect(finished.subagent.finishedAt).toBe(1778328060000);
    const before = logBytes(ws);
    const again = await ws.ok(OrchestrationSubagentEnvelope, ['subagent', 'finish', id], { session: S, now: at(2 * MIN) });
    expect(again.subagent.finishedAt).toBe(1778328060000);
    expect(logBytes(ws)).toBe(before);
    expect((await ws.fail(['subagent', 'start', '--kind', 'instrumentation', '--root-task', T2], { session: S })).exit).toBe(2);
    expect(logBytes(ws)).toBe(before);
    const view = await ws.ok(OrchestrationSessionViewEnvelope, ['session', S]);
    expect(view.baton.subagents.map((a) => a.id)).toEqual([id]);
  });
});

describe('history, replay, idempotency, integrity', () => {
  /** T47's log: `$T` created queued, moved to running, then blocked "flaky CI", all by `$S` (built once, copied for each test). */
  const t47log = sharedSetup('baton-tasks-', async (dir) => {
    const { ws, S } = await sessionWorkspace(dir);
    const T = await setUp.task(ws, S, 'h');
    await setUp.move(ws, T, 'running', { session: S, now: at(MIN) });
    await setUp.move(ws, T, 'blocked', { session: S, now: at(2 * MIN), reason: 'flaky CI' });
    return { S, T };
  });
  async function t47(): Promise<{ ws: Ws; S: string; T: string }> {
    const { dir, made } = await t47log();
    return { ws: wsAt(dir), ...made };
  }

  it('T47: the task history says who moved it, when and why', async () => {
    const { ws, S, T } = await t47();
    const h = (await showTask(ws, T)).baton.history;
    expect(h.map((e) => e.type)).toEqual(['created', 'transitioned', 'transitioned']);
    expect(h[0]!.seq < h[1]!.seq && h[1]!.seq < h[2]!.seq).toBe(true);
    expect(h.map((e) => e.actor)).toEqual([S, S, S]);
    expect(h[1]).toMatchObject({ from: 'queued', to: 'running' });
    expect(h[2]).toMatchObject({ from: 'running', to: 'blocked', reason: 'flaky CI', actor: S });
  });

  it('T48: replay of the last stopping point as of the second event of the task shows it running', async () => {
    const { ws, T } = await t47();
    const second = (await showTask(ws, T)).baton.history[1]!.seq;
    const r = await ws.ok(OrchestrationStatusEnvelope, ['replay', '--view', 'last-stopping-point', '--to', String(second)]);
    expect(r.lastStoppingPoint.activeTasks.map((t) => [t.id, t.state])).toEqual([[T, 'running']]);
    // And the head still shows it blocked.
    expect((await showTask(ws, T)).task.state).toBe('blocked');
  });

  it('replay --view task takes the task id as a positional argument, like `task <id>` (tasks.md §11.3)', async () => {
    const { ws, S, T } = await t47();
    const second = (await showTask(ws, T)).baton.history[1]!.seq;
    const positional = await ws.ok(OrchestrationTaskEnvelope, ['replay', '--view', 'task', '--to', String(second), T]);
    const flag = await ws.ok(OrchestrationTaskEnvelope, ['replay', '--view', 'task', '--to', String(second), '--task', T]);
    expect(positional.task).toEqual(flag.task);
    expect(positional.task.state).toBe('running');
    expect(positional.baton.history).toHaveLength(2);
    const session = await ws.ok(OrchestrationSessionViewEnvelope, ['replay', '--view', 'session', '--to', String(second), S]);
    expect(session.session.id).toBe(S);
  });

  it('T49: a repeated create with the same idempotency key returns the first task and appends nothing', async () => {
    const { ws, S } = await given();
    const k1 = await ws.ok(OrchestrationTaskEnvelope, ['task', 'create', '--label', 'x', '--idempotency-key', 'k1'], { session: S });
    const before = logBytes(ws);
    const k2 = await ws.ok(OrchestrationTaskEnvelope, ['task', 'create', '--label', 'x', '--idempotency-key', 'k1'], { session: S });
    expect(k2.task.id).toBe(k1.task.id);
    expect(logBytes(ws)).toBe(before);
    expect(eventsOfType(ws, 'task.created')).toHaveLength(1);
  });

  it('T50: an event the machine rejects is an integrity finding, not a state change', async () => {
    const { ws, S } = await given();
    const T = await setUp.task(ws, S, 'q');
    const raw = await ws.ok(AppendedEnvelope, [
      'log',
      'append',
      '--type',
      'task.transitioned',
      '--stream',
      `task/${T}`,
      '--data',
      JSON.stringify({ task_id: T, from: 'queued', to: 'completed' }),
    ]);
    const seq = raw.events[0]!.seq;
    const q = await showTask(ws, T);
    expect(q.task.state).toBe('queued');
    expect(q.baton.integrity_findings).toHaveLength(1);
    expect(q.baton.integrity_findings[0]!.seq).toBe(seq);
    const st = await ws.ok(OrchestrationStatusEnvelope, ['status']);
    expect(st.baton.integrity_finding_count).toBe(1);
    expect(st.baton.integrity_findings).toEqual([{ seq, stream: `task/${T}`, type: 'task.transitioned', reason: q.baton.integrity_findings[0]!.reason }]);
    const human = await ws.run(['--human', 'status']);
    expect(human.stdout).toContain(`Integrity findings: 1`);
    expect(human.stdout).toContain(`seq ${seq} task.transitioned on task/${T}: ${q.baton.integrity_findings[0]!.reason}`);
  });
});
