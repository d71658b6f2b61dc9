import type { Decision } from '../../deciders/decision.js';
import { applyTasks, type TasksState } from '../../projections/tasks/state.js';
import { actingIn } from '../coordination/acting.js';
import { handleCommand, type Handled } from '../store/handle-command.js';
import { loadTasks, type TasksEnv } from './env.js';

/**
 * A tasks command through the one command handler (tasks.md §11.1): the tasks fold is the state a
 * decider reads (its sessions also answer the acting session's liveness), the appended event is folded in, and a version conflict reads and decides again
 * (at most 3 retries, then CONFLICT, exit 4).
 */
export async function runTasksCommand<R>(env: TasksEnv, decide: (state: TasksState) => Decision<R> | null): Promise<Handled<TasksState, R>> {
  return handleCommand(
    {
      store: await env.store(),
      catalog: env.catalog,
      actor: env.actor,
      now: env.now,
      read: async () => (await loadTasks(env)).state,
      evolve: applyTasks,
      // A task fact recorded as a session needs it live: judged from the sessions of the fold read.
      acting: actingIn({ session: env.session, sessionName: env.sessionName }, (state: TasksState) => state.coordination),
    },
    decide,
  );
}
