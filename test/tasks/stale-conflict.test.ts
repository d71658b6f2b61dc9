import { describe, expect, it } from 'vitest';
import { createCatalog } from '../../events/index.js';
import { ConflictError } from '../../src/errors.js';
import { MemoryEventStore } from '../../src/store/memory-store.js';
import { loadTasks, type TasksEnv } from '../../src/tasks/env.js';
import { decideTransition } from '../../deciders/tasks.js';
import { parseTransition } from '../../src/tasks/transition-task.js';

/** §11.1: a transition decided on a stale state is a CONFLICT at append, never a last-writer-wins overwrite. */
describe('a transition from a stale state', () => {
  it('gets CONFLICT and writes nothing', async () => {
    const catalog = createCatalog();
    const now = '2026-05-09T12:00:00.000Z';
    const store = new MemoryEventStore({ catalog, now: () => now });
    const env: TasksEnv = {
      workspace: '/ws',
      now,
      actor: 'system',
      session: undefined,
      invocation: ['baton'],
      workspaceFilter: undefined,
      catalog,
      cacheDir: undefined,
      store: async () => store,
      hasStore: true,
    };
    await store.append([{ type: 'session.started', stream: 'session/session_s', data: { session_id: 'session_s', display_name: 'S', ttl_seconds: 60 } }]);
    await store.append([{ type: 'task.created', stream: 'task/task_t', data: { task_id: 'task_t', session_id: 'session_s', label: 't', state: 'running' } }]);

    const stale = (await loadTasks(env)).state;
    const complete = decideTransition(parseTransition('task_t', 'completed', {}), stale);
    const fail = decideTransition(parseTransition('task_t', 'failed', {}), stale);
    await store.append(complete.events, { expectedVersion: complete.expected });
    const head = await store.head();
    await expect(store.append(fail.events, { expectedVersion: fail.expected })).rejects.toBeInstanceOf(ConflictError);
    expect((await store.head()).seq).toBe(head.seq);
    expect((await loadTasks(env)).state.tasks.get('task_t')!.state).toBe('completed');
  });
});
