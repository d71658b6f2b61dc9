import { initiativeSummaries } from '../../projections/tasks/initiatives.js';
import { tasksStateProjection } from '../../projections/tasks/projections.js';
import { initTasks, type TasksState } from '../../projections/tasks/state.js';
import type { InitiativeSummary } from '../../projections/tasks/views.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import { initWorkUnits } from '../../projections/work-units/state.js';
import { runProjections } from '../store/projection-runner.js';
import { loadWorkUnitsConfig } from '../config/work-units.js';
import { readConfigText } from '../workspace.js';
import type { TasksEnv } from './env.js';

/**
 * What `baton status` folds (tasks.md §10.5): the tasks fold and the work-unit fold, in one pass
 * over the log (each from its own snapshot), and the initiatives' next safe actions computed from
 * the work-unit fold with the workspace's settings. Projections only: no probe runs.
 */
export async function loadStatusFolds(env: TasksEnv): Promise<{ state: TasksState; initiatives: InitiativeSummary[] }> {
  const config = await loadWorkUnitsConfig(readConfigText(env.workspace));
  if (!env.hasStore) return { state: initTasks(), initiatives: initiativeSummaries(initWorkUnits(), config, env.now) };
  const [tasks, workUnits] = await runProjections(await env.store(), [tasksStateProjection, workUnitsStateProjection] as const, {
    catalog: env.catalog,
    now: env.now,
    ...(env.cacheDir !== undefined ? { cacheDir: env.cacheDir } : {}),
  });
  return { state: tasks.state, initiatives: initiativeSummaries(workUnits.state, config, env.now) };
}
