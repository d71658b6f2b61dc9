import { describe, expect, it } from 'vitest';
import { decideCreateTask, decideFinishSubagent, decideOwnTask, decideStartSubagent, decideTransition } from '../../deciders/tasks.js';
import { tasksStateProjection } from '../../projections/tasks/projections.js';
import { given, refusalOf, type Fact } from './given.js';

/** The tasks rules (tasks.md §5–§8), decided without a store or the binary: given facts, when a command, then events or a refusal. */
const S = 'session_s';
const started: Fact = { type: 'session.started', stream: `session/${S}`, data: { session_id: S, display_name: 'S', ttl_seconds: 3600 } };
const created = (id: string, state = 'running', extra: Record<string, unknown> = {}): Fact => ({
  type: 'task.created',
  stream: `task/${id}`,
  data: { task_id: id, session_id: S, label: id, state, ...extra },
});
const tasks = (facts: Fact[]) => given(tasksStateProjection, facts);

describe('task create', () => {
  it('given an open session, creates the task on a new stream', () => {
    const decision = decideCreateTask({ taskId: 'task_a', sessionId: S, label: 'Write', state: 'queued' }, tasks([started]));
    expect(decision.events).toEqual([
      { type: 'task.created', stream: 'task/task_a', data: { task_id: 'task_a', session_id: S, label: 'Write', state: 'queued' } },
    ]);
    expect(decision.expected).toEqual({ 'task/task_a': 'no_stream' });
    expect(decision.outcome).toEqual({ id: 'task_a' });
  });

  it('given an ended session, refuses with SESSION_ENDED', () => {
    const ended: Fact = { type: 'session.ended', stream: `session/${S}`, data: { session_id: S, status: 'succeeded' } };
    const refusal = refusalOf(() => decideCreateTask({ taskId: 'task_a', sessionId: S, label: 'x', state: 'queued' }, tasks([started, ended])));
    expect(refusal.code).toBe('SESSION_ENDED');
  });

  it('given a task created with the same idempotency key, appends nothing and names that task (C6)', () => {
    const state = tasks([started, created('task_first', 'queued')]);
    state.tasks.get('task_first')!.idempotency_key = 'k1';
    const decision = decideCreateTask({ taskId: 'task_second', sessionId: S, label: 'x', state: 'queued', idempotencyKey: 'k1' }, state);
    expect(decision.events).toEqual([]);
    expect(decision.outcome).toEqual({ id: 'task_first' });
  });

  it('refuses a parent of another session, naming the parent field (the CLI says --parent)', () => {
    const other: Fact = { type: 'session.started', stream: 'session/session_o', data: { session_id: 'session_o', display_name: 'O', ttl_seconds: 3600 } };
    const theirs: Fact = { type: 'task.created', stream: 'task/task_p', data: { task_id: 'task_p', session_id: 'session_o', label: 'p', state: 'running' } };
    const refusal = refusalOf(() =>
      decideCreateTask({ taskId: 'task_c', sessionId: S, label: 'c', state: 'queued', parent: 'task_p' }, tasks([started, other, theirs])),
    );
    expect(refusal).toEqual({ code: 'INVALID_INPUT', message: `parent: task task_p belongs to session session_o, not ${S}` });
  });
});

describe('task transition', () => {
  it('given a running task, completes it with the version of its stream', () => {
    const decision = decideTransition({ taskId: 'task_a', to: 'completed', data: { result: { outcome: 'completed' } } }, tasks([started, created('task_a')]));
    expect(decision.events).toEqual([
      { type: 'task.transitioned', stream: 'task/task_a', data: { task_id: 'task_a', from: 'running', to: 'completed', result: { outcome: 'completed' } } },
    ]);
    expect(decision.expected).toEqual({ 'task/task_a': 1 });
  });

  it('refuses what the machine does not allow, naming the move', () => {
    const refusal = refusalOf(() =>
      decideTransition(
        { taskId: 'task_a', to: 'running', data: {} },
        tasks([
          started,
          created('task_a', 'running'),
          { type: 'task.transitioned', stream: 'task/task_a', data: { task_id: 'task_a', from: 'running', to: 'completed', result: { outcome: 'completed' } } },
        ]),
      ),
    );
    expect(refusal.code).toBe('ILLEGAL_TRANSITION');
    expect(refusal.message).toContain('task_a');
  });

  it('refuses an unknown task with UNKNOWN_TASK', () => {
    expect(refusalOf(() => decideTransition({ taskId: 'task_none', to: 'completed', data: {} }, tasks([started]))).code).toBe('UNKNOWN_TASK');
  });
});

describe('task own and subagents', () => {
  const entry = { kind: 'file' as const, path: 'src/a.ts' };

  it('an equal ownership entry appends nothing (O4); a new one is appended', () => {
    const first = decideOwnTask({ taskId: 'task_a', entry }, tasks([started, created('task_a')]));
    expect(first?.events[0]?.type).toBe('task.ownership_added');
    const owned: Fact = { type: 'task.ownership_added', stream: 'task/task_a', data: { task_id: 'task_a', ownership: entry } };
    expect(decideOwnTask({ taskId: 'task_a', entry }, tasks([started, created('task_a'), owned]))).toBeNull();
  });

  it('a subagent starts under a task of the acting session, and finishing twice appends nothing (A2)', () => {
    const start = decideStartSubagent({ subagentId: 'subagent_x', sessionId: S, kind: 'explore', rootTask: 'task_a' }, tasks([started, created('task_a')]));
    expect(start.events).toEqual([
      { type: 'subagent.started', stream: 'subagent/subagent_x', data: { subagent_id: 'subagent_x', session_id: S, kind: 'explore', root_task_id: 'task_a' } },
    ]);
    const startedFact: Fact = { type: 'subagent.started', stream: 'subagent/subagent_x', data: start.events[0]!.data };
    const finished: Fact = { type: 'subagent.finished', stream: 'subagent/subagent_x', data: { subagent_id: 'subagent_x' } };
    expect(decideFinishSubagent({ subagentId: 'subagent_x' }, tasks([started, created('task_a'), startedFact]))?.expected).toEqual({
      'subagent/subagent_x': 1,
    });
    expect(decideFinishSubagent({ subagentId: 'subagent_x' }, tasks([started, created('task_a'), startedFact, finished]))).toBeNull();
  });
});
