import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../helpers/workspace.js';
import { at, createTask, HOUR, logBytes, MIN, move, startSession, T0, workspace } from './helpers.js';

/** tasks.md §12 T02–T20, T47, T49, T50 through the built binary. */
afterAll(removeTempDirs);
const T0MS = Date.parse(T0);

describe('creating and transitioning tasks', () => {
  it('T02–T07: messages, identity, create defaults, created running, no terminal creation', async () => {
    const ws = await workspace();
    const S = await startSession(ws, { goal: 'set up', branch: 'main' });
    const created = await ws.j(['task', 'create', '--label', 'scan'], { session: S });
    expect(created.type).toBe('orchestration_task');
    expect(created.task.id).toMatch(/^task_[0-9a-f]{24}$/);
    expect(created.task).toMatchObject({ sessionId: S, label: 'scan', state: 'queued', ownership: [], subagentKind: null, createdAt: T0MS, updatedAt: T0MS, startedAt: null });
    for (const key of ['waitingFor', 'blockedReason', 'result']) expect(created.task).not.toHaveProperty(key);
    const T = created.task.id as string;
    const before = logBytes(ws);
    const e3 = await move(ws, T, 'completed', { session: S });
    expect(e3.__code).toBe(2);
    expect(e3.message).toBe(`Task ${T} cannot transition from 'queued' to 'completed' — not in the allowed transition set.`);
    expect(logBytes(ws)).toBe(before);
    expect((await move(ws, T, 'cancelled', { session: S })).__code).toBe(0);
    const e2 = await move(ws, T, 'running', { session: S });
    expect(e2.message).toBe(`Task ${T} is already terminal in state 'cancelled' — terminal tasks cannot transition.`);

    const R = await createTask(ws, S, 'scan', { state: 'running' });
    const r = await ws.j(['task', R]);
    expect(r.task.startedAt).toBe(T0MS);
    expect(r.task.createdAt).toBe(T0MS);
    const e4 = await move(ws, R, 'running', { session: S });
    expect(e4.__code).toBe(2);
    expect(e4.message).toBe(`Task ${R} cannot transition from 'running' to 'running' — not in the allowed transition set.`);

    const before7 = logBytes(ws);
    for (const state of ['completed', 'waiting_for_user', 'blocked', 'failed', 'cancelled', 'superseded']) {
      const e = await ws.j(['task', 'create', '--label', 'x', '--state', state], { session: S });
      expect(e.__code).toBe(2);
      expect(e.code).toBe('INVALID_INPUT');
      expect(e.message).toBe(`A task can only be created queued or running; got '${state}'.`);
    }
    expect((await ws.j(['task', 'create', '--label', 'x', '--state', 'bogus'], { session: S })).__code).toBe(2);
    expect(logBytes(ws)).toBe(before7);
  });

  it('T08, T09: owning session and parent are checked', async () => {
    const ws = await workspace();
    const S = await startSession(ws);
    const S2 = await startSession(ws);
    const before = logBytes(ws);
    const none = await ws.j(['task', 'create', '--label', 'x']);
    expect([none.__code, none.message]).toEqual([2, '--session is required (or set BATON_SESSION)']);
    const nope = await ws.j(['task', 'create', '--label', 'x'], { session: 'session_nope' });
    expect([nope.__code, nope.code, nope.message]).toEqual([2, 'UNKNOWN_SESSION', 'Session session_nope not found']);
    const noParent = await ws.j(['task', 'create', '--label', 'c', '--parent', 'task_nope'], { session: S });
    expect([noParent.__code, noParent.message]).toEqual([2, 'Task task_nope not found']);
    expect(logBytes(ws)).toBe(before);
    const P2 = await createTask(ws, S2, 'other');
    expect((await ws.j(['task', 'create', '--label', 'c', '--parent', P2], { session: S })).__code).toBe(2);
    const P = await createTask(ws, S, 'parent');
    const child = await ws.j(['task', 'create', '--label', 'c', '--parent', P], { session: S });
    expect(child.task.parentTaskId).toBe(P);
    expect((await ws.b(['session', 'end', S])).code).toBe(0);
    const ended = await ws.j(['task', 'create', '--label', 'x'], { session: S });
    expect([ended.__code, ended.code]).toEqual([2, 'SESSION_ENDED']);
    expect(ended.message).toMatch(new RegExp(`^Session ${S} has ended in status 'succeeded'`));
  });

  it('T10–T12: startedAt once, checkpoint set and cleared, blocked reason set and cleared', async () => {
    const ws = await workspace();
    const S = await startSession(ws);
    const T = await createTask(ws, S, 'q');
    await move(ws, T, 'running', { now: at(MIN) });
    await move(ws, T, 'waiting_for_user', { now: at(2 * MIN) });
    const t10 = await move(ws, T, 'running', { now: at(4 * HOUR) });
    expect(t10.task.startedAt).toBe(T0MS + MIN);
    expect(t10.task.updatedAt).toBe(T0MS + 4 * HOUR);
    expect(t10.task).not.toHaveProperty('waitingFor');

    const w = await move(ws, T, 'waiting_for_user', {
      now: at(4 * HOUR + MIN),
      extra: ['--checkpoint-id', 'cp1', '--checkpoint-kind', 'event_plan_confirm', '--checkpoint-summary', 'review plan'],
    });
    expect(w.task.waitingFor).toEqual({ id: 'cp1', kind: 'event_plan_confirm', summary: 'review plan', enteredAt: T0MS + 4 * HOUR + MIN });
    expect((await move(ws, T, 'running')).task).not.toHaveProperty('waitingFor');

    expect((await move(ws, T, 'blocked', { extra: ['--reason', 'network unreachable'] })).task.blockedReason).toBe('network unreachable');
    expect((await move(ws, T, 'running')).task).not.toHaveProperty('blockedReason');
    expect((await move(ws, T, 'blocked')).task).not.toHaveProperty('blockedReason');
  });

  it('T13–T16: flags without effect, results, bad error class, superseded-by', async () => {
    const ws = await workspace();
    const S = await startSession(ws);
    const T = await createTask(ws, S, 'r', { state: 'running' });
    const U = await createTask(ws, S, 'u');
    const before = logBytes(ws);
    for (const [to, ...extra] of [
      ['blocked', '--checkpoint-id', 'a', '--checkpoint-kind', 'user_choice'],
      ['waiting_for_user', '--checkpoint-kind', 'user_choice'],
      ['failed', '--superseded-by', U],
      ['completed', '--error-class', 'internal', '--error-message', 'm'],
      ['waiting_for_user', '--summary', 's'],
      ['failed', '--error-class', 'cosmic_rays', '--error-message', 'm'],
      ['superseded', '--superseded-by', 'task_nope'],
      ['superseded', '--superseded-by', T],
    ] as string[][]) {
      const e = await move(ws, T, to!, { extra });
      expect(e.__code, `${to} ${extra.join(' ')}`).toBe(2);
    }
    expect((await move(ws, T, 'superseded', { extra: ['--superseded-by', 'task_nope'] })).message).toBe('Task task_nope not found');
    expect(logBytes(ws)).toBe(before);

    const failed = await move(ws, T, 'failed', { now: at(2 * MIN), extra: ['--summary', 'tests red', '--error-class', 'validation', '--error-message', '3 failing'] });
    expect(failed.task.result).toEqual({ outcome: 'failed', summary: 'tests red', error: { message: '3 failing', class: 'validation' }, finishedAt: T0MS + 2 * MIN });
    const C = await createTask(ws, S, 'c', { state: 'running' });
    expect((await move(ws, C, 'completed', { now: at(3 * MIN) })).task.result).toEqual({ outcome: 'completed', finishedAt: T0MS + 3 * MIN });
    const V = await createTask(ws, S, 'v', { state: 'running' });
    const sup = await move(ws, V, 'superseded', { extra: ['--superseded-by', U] });
    expect(sup.task.supersededBy).toBe(U);
    expect(sup.task.result.outcome).toBe('superseded');
  });

  it('T17–T19: ownership is idempotent, pull requests update in place, one kind only', async () => {
    const ws = await workspace();
    const S = await startSession(ws);
    const T = await createTask(ws, S, 'o');
    const a = await ws.j(['task', 'own', T, '--branch', 'feat/x'], { session: S, now: at(MIN) });
    const b = await ws.j(['task', 'own', T, '--branch', 'feat/x'], { session: S, now: at(2 * MIN) });
    for (const e of [a, b]) {
      expect(e.__code).toBe(0);
      expect(e.task.ownership).toEqual([{ kind: 'branch', name: 'feat/x' }]);
      expect(e.task.updatedAt).toBe(T0MS + MIN);
    }
    const url = 'https://github.com/acme/app/pull/42';
    const pr = await ws.j(['task', 'own', T, '--pr', url, '--pr-state', 'open'], { session: S });
    expect(pr.task.ownership[1]).toEqual({ kind: 'pull_request', number: 42, repo: 'acme/app', url, state: 'open' });
    const merged = await ws.j(['task', 'own', T, '--pr', url, '--pr-state', 'merged'], { session: S });
    expect(merged.task.ownership).toHaveLength(2);
    expect(merged.task.ownership[1].state).toBe('merged');
    const before = logBytes(ws);
    for (const flags of [['--pr', 'https://example.com/x'], ['--pr', 'https://github.com/acme/app/pull/0'], ['--pr', url, '--pr-state', 'draft'], [], ['--branch', 'a', '--file', 'b'], ['--branch', '-x'], ['--pr-state', 'open', '--branch', 'z']]) {
      const e = await ws.j(['task', 'own', T, ...flags], { session: S });
      expect(e.__code, flags.join(' ')).toBe(2);
    }
    expect(logBytes(ws)).toBe(before);
    const log = await ws.b(['log', 'show', '--type', 'task.ownership_added']);
    expect(log.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('T20: subagents start, finish once, root task of another session refused', async () => {
    const ws = await workspace();
    const S = await startSession(ws);
    const S2 = await startSession(ws);
    const T = await createTask(ws, S, 'root');
    const T2 = await createTask(ws, S2, 'other');
    const started = await ws.j(['subagent', 'start', '--kind', 'instrumentation', '--root-task', T], { session: S });
    expect(started.type).toBe('orchestration_subagent');
    expect(started.subagent).toMatchObject({ sessionId: S, rootTaskId: T, finishedAt: null, kind: 'instrumentation' });
    expect(started.subagent.id).toMatch(/^subagent_/);
    const id = started.subagent.id as string;
    expect((await ws.j(['subagent', 'finish', id], { now: at(MIN) })).subagent.finishedAt).toBe(T0MS + MIN);
    const before = logBytes(ws);
    const again = await ws.j(['subagent', 'finish', id], { now: at(2 * MIN) });
    expect([again.__code, again.subagent.finishedAt]).toEqual([0, T0MS + MIN]);
    expect(logBytes(ws)).toBe(before);
    expect((await ws.j(['subagent', 'start', '--kind', 'x', '--root-task', T2], { session: S })).__code).toBe(2);
    expect((await ws.j(['session', S])).baton.subagents).toHaveLength(1);
  });

  it('T47, T49, T50: history, idempotent create, integrity findings', async () => {
    const ws = await workspace();
    const S = await startSession(ws);
    const T = await createTask(ws, S, 'h');
    await move(ws, T, 'running', { session: S });
    await move(ws, T, 'blocked', { session: S, extra: ['--reason', 'flaky CI'] });
    const h = (await ws.j(['task', T])).baton.history as Record<string, unknown>[];
    expect(h.map((e) => e['type'])).toEqual(['created', 'transitioned', 'transitioned']);
    expect((h[1]!['seq'] as number) < (h[2]!['seq'] as number)).toBe(true);
    expect(h[2]).toMatchObject({ from: 'running', to: 'blocked', reason: 'flaky CI', actor: S });

    const k1 = await ws.j(['task', 'create', '--label', 'x', '--idempotency-key', 'k1'], { session: S });
    const k2 = await ws.j(['task', 'create', '--label', 'x', '--idempotency-key', 'k1'], { session: S });
    expect(k2.task.id).toBe(k1.task.id);
    const creates = await ws.b(['log', 'show', '--type', 'task.created']);
    expect(creates.stdout.trim().split('\n')).toHaveLength(2);

    const Q = await createTask(ws, S, 'q');
    const raw = await ws.j(['log', 'append', '--type', 'task.transitioned', '--stream', `task/${Q}`, '--data', JSON.stringify({ task_id: Q, from: 'queued', to: 'completed' })]);
    expect(raw.__code).toBe(0);
    const seq = raw.events[0].seq as number;
    const q = await ws.j(['task', Q]);
    expect(q.task.state).toBe('queued');
    expect(q.baton.integrity_findings).toHaveLength(1);
    expect(q.baton.integrity_findings[0].seq).toBe(seq);
    const st = await ws.j(['status']);
    expect([st.__code, st.baton.integrity_finding_count]).toEqual([0, 1]);

    // T48: replay as of the second event of $T shows it running.
    const secondSeq = h[1]!['seq'] as number;
    const r = await ws.j(['replay', '--view', 'last-stopping-point', '--to', String(secondSeq)]);
    expect(r.type).toBe('orchestration_status');
    expect(r.lastStoppingPoint.activeTasks.map((t: { id: string; state: string }) => [t.id, t.state])).toEqual([[T, 'running']]);
    const rt = await ws.j(['replay', '--view', 'task', '--task', T, '--to', String(secondSeq)]);
    expect(rt.task.state).toBe('running');
  });
});
