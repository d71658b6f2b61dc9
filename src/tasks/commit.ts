import type { NewEvent, StoredEvent } from '../../events/envelope.js';
import type { TasksState } from '../../projections/tasks/state.js';
import { applyTasks } from '../../projections/tasks/state.js';
import { ConflictError } from '../errors.js';
import type { ExpectedVersion } from '../store/contract.js';
import { loadTasks, type TasksEnv } from './env.js';
import { asBatonError } from './refusals.js';

/**
 * Decide, append, retry (tasks.md §11.1): read the fold, let `decide` choose the one event to
 * append (or nothing), append it with the expected version of the stream it writes as the fold
 * saw it. On a version conflict, read again and decide again — at most 3 retries, then CONFLICT
 * (exit 4). Deciding again may turn the request illegal; that refusal is what the caller gets.
 */
export interface Decision {
  event: NewEvent;
  expectedVersion: ExpectedVersion;
  idempotencyKey?: string | undefined;
}

export const MAX_RETRIES = 3;

export interface Committed {
  /** The fold including the appended event (or as read, when nothing was appended). */
  state: TasksState;
  appended: StoredEvent[];
  deduplicated: boolean;
}

export async function decideAndAppend(env: TasksEnv, decide: (state: TasksState) => Decision | null): Promise<Committed> {
  for (let attempt = 0; ; attempt++) {
    const { state } = await loadTasks(env);
    let decision: Decision | null;
    try {
      decision = decide(state);
    } catch (error) {
      throw asBatonError(error);
    }
    if (decision === null) return { state, appended: [], deduplicated: false };
    try {
      const store = await env.store();
      const result = await store.append([decision.event], {
        expectedVersion: decision.expectedVersion,
        ...(decision.idempotencyKey !== undefined ? { idempotencyKey: decision.idempotencyKey } : {}),
      });
      if (result.deduplicated) return { state: (await loadTasks(env)).state, appended: result.events, deduplicated: true };
      for (const event of result.events) applyTasks(state, env.catalog.upcast(event));
      return { state, appended: result.events, deduplicated: false };
    } catch (error) {
      if (error instanceof ConflictError && attempt < MAX_RETRIES) continue;
      throw error;
    }
  }
}
