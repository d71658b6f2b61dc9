import { decideLapses } from '../../deciders/sessions.js';
import { applyTasks, type TasksState } from '../../projections/tasks/state.js';
import { applyWorkUnits, type WorkUnitsState } from '../../projections/work-units/state.js';
import { ConflictError } from '../errors.js';
import type { TasksEnv } from './env.js';
import { loadTasksAndWorkUnits } from './status-folds.js';

/**
 * The tasks fold and the work-unit fold (one pass over the log), after recording the lapses they
 * show (deciders/sessions.ts `decideLapses`: sessions idle past their TTL that hold work units, each
 * lapse once), folded into both: what `baton sessions` lists. A lapse expects its session stream's
 * version; when another command recorded it first (or the session came back), nothing is appended
 * and the next command decides again. Without a store, or with nothing to record, nothing is written.
 */
export async function foldsWithLapses(env: TasksEnv): Promise<{ state: TasksState; workUnits: WorkUnitsState }> {
  const folds = await loadTasksAndWorkUnits(env);
  const lapses = env.hasStore ? decideLapses(folds.workUnits, env.now, env.actor) : null;
  if (lapses === null) return folds;
  const store = await env.store();
  try {
    const result = await store.append(
      lapses.events.map((e) => ({ ...e, actor: env.actor, at: env.now })),
      { expectedVersion: lapses.expected },
    );
    for (const stored of result.events) {
      const event = env.catalog.upcast(stored);
      applyTasks(folds.state, event);
      applyWorkUnits(folds.workUnits, event);
    }
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
  }
  return folds;
}
