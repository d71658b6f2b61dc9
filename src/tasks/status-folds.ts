import { initiativeSummaries } from '../../projections/tasks/initiatives.js';
import { tasksStateProjection } from '../../projections/tasks/projections.js';
import { initTasks, type TasksState } from '../../projections/tasks/state.js';
import type { InitiativeSummary } from '../../projections/tasks/views.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import { heldWorkUnits, type HeldWorkUnit } from '../../projections/work-units/held.js';
import { initWorkUnits, type WorkUnitsState } from '../../projections/work-units/state.js';
import { runProjections } from '../store/projection-runner.js';
import { loadWorkUnitsConfig } from '../config/work-units.js';
import { readConfigText } from '../workspace.js';
import type { TasksEnv } from './env.js';

/**
 * What `baton status` folds (tasks.md §10.5): the tasks fold and the work-unit fold, in one pass
 * over the log (each from its own snapshot), and from the work-unit fold the initiatives' next safe
 * actions (with the workspace's settings) and the work units each session holds. Projections only:
 * no probe runs.
 */
export async function loadStatusFolds(env: TasksEnv): Promise<{ state: TasksState; initiatives: InitiativeSummary[]; held: Map<string, HeldWorkUnit[]> }> {
  const config = await loadWorkUnitsConfig(readConfigText(env.workspace));
  const { state, workUnits } = await loadTasksAndWorkUnits(env);
  return { state, initiatives: initiativeSummaries(workUnits, config, env.now), held: heldWorkUnits(workUnits) };
}

/** The tasks fold and the work-unit fold, in one pass over the log; both empty without a store. */
export async function loadTasksAndWorkUnits(env: TasksEnv): Promise<{ state: TasksState; workUnits: WorkUnitsState }> {
  if (!env.hasStore) return { state: initTasks(), workUnits: initWorkUnits() };
  const [tasks, workUnits] = await runProjections(await env.store(), [tasksStateProjection, workUnitsStateProjection] as const, {
    catalog: env.catalog,
    now: env.now,
    ...(env.cacheDir !== undefined ? { cacheDir: env.cacheDir } : {}),
  });
  return { state: tasks.state, workUnits: workUnits.state };
}
