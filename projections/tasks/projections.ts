import type { BatonEvent } from '../../events/baton-event.js';
import { TASK_STATES, type TaskState } from '../../events/tasks/terms.js';
import type { Projection } from '../projection.js';
import { Refusal, TaskErrorCode } from './refusal.js';
import { refuseField } from '../../deciders/refusal.js';
import { applyTasks, deserializeTasks, initTasks, serializeTasks, type TasksState } from './state.js';
import { DEFAULT_WORK_UNITS_CONFIG } from '../work-units/settings.js';
import { applyWorkUnits, initWorkUnits, type WorkUnitsState } from '../work-units/state.js';
import { initiativeSummaries } from './initiatives.js';
import { sessionEnvelope, sessionsEnvelope, statusEnvelope, taskEnvelope, tasksEnvelope, type StatusEnvelope, type ViewContext } from './views.js';

/**
 * The tasks views for `replay --view …` (tasks.md §11.3): one fold (sessions + tasks +
 * subagents), five views. `replay` hands `install_dir`, `resume_invocation` (a JSON argv),
 * `store_path`, `store_exists` and the view's own flags as arguments.
 */
export type ViewArgs = Readonly<Record<string, string | boolean | undefined>>;

const str = (args: ViewArgs, key: string): string | undefined => (typeof args[key] === 'string' ? (args[key] as string) : undefined);

export function viewContextFrom(args: ViewArgs, now: string): ViewContext {
  let invocation: string[] = ['baton'];
  const raw = str(args, 'resume_invocation');
  if (raw !== undefined) invocation = JSON.parse(raw) as string[];
  return { now, installDir: str(args, 'install_dir') ?? '.', invocation, workspaceFilter: str(args, 'workspace_filter') };
}

export function parseStateFilter(raw: string): TaskState {
  if (!(TASK_STATES as readonly string[]).includes(raw)) {
    throw refuseField(TaskErrorCode.INVALID_INPUT, 'state', (name) => `Invalid ${name} value: '${raw}'. Allowed: ${TASK_STATES.join(', ')}.`);
  }
  return raw as TaskState;
}

function required(args: ViewArgs, key: string): string {
  const value = str(args, key);
  if (value === undefined) throw refuseField(TaskErrorCode.INVALID_INPUT, key, (name) => `${name} is required for this view`);
  return value;
}

/** Identity of the tasks fold (Projection.fold): its views are folded once per run. */
const TASKS_FOLD = Object.freeze({ fold: 'tasks' });

/** `view` (no arguments) never throws — the runner always calls it; views that need an id answer with a bare head. */
function tasksProjection<V>(
  name: string,
  view: (state: TasksState, now: string, args: ViewArgs) => V,
): Projection<TasksState, V | { v: 1; type: string; generated_at: string }> & { viewWith(state: TasksState, now: string, args: ViewArgs): V } {
  return {
    name,
    // 2: its coordination fold keeps each session's latest lapse.
    version: 2,
    fold: TASKS_FOLD,
    init: initTasks,
    apply: (state: TasksState, event: BatonEvent) => applyTasks(state, event),
    view: (state, now) => {
      try {
        return view(state, now, {});
      } catch (error) {
        if (error instanceof Refusal) return { v: 1 as const, type: name, generated_at: now };
        throw error;
      }
    },
    viewWith: view,
    serialize: serializeTasks,
    deserialize: deserializeTasks,
  };
}

/** The fold every tasks command runs (its snapshot is shared by all of them). */
export const tasksStateProjection = tasksProjection('tasks_state', (_state, now) => ({ v: 1 as const, type: 'tasks_state', generated_at: now }));

/**
 * The last stopping point as `replay` computes it: `baton status` at a past position, so it folds
 * the work units too (`baton.initiatives`, §10.5). Replay has no config file: the initiatives use
 * the default work-unit settings plus what the log recorded, as the `initiative-status` replay does.
 */
export interface LastStoppingPointState {
  tasks: TasksState;
  work_units: WorkUnitsState;
}

function lspView(state: LastStoppingPointState, now: string, args: ViewArgs): StatusEnvelope {
  return statusEnvelope(state.tasks, viewContextFrom(args, now), {
    storePath: str(args, 'store_path') ?? '',
    storeExists: args['store_exists'] === true,
    scope: str(args, 'session'),
    acting: str(args, 'session'),
    initiatives: initiativeSummaries(state.work_units, DEFAULT_WORK_UNITS_CONFIG, now),
  });
}

export const lastStoppingPointProjection: Projection<LastStoppingPointState, StatusEnvelope | { v: 1; type: string; generated_at: string }> & {
  viewWith(state: LastStoppingPointState, now: string, args: ViewArgs): StatusEnvelope;
} = {
  name: 'last_stopping_point',
  // 3: the work-unit fold inside it counts session streams and keeps lapses (work-units/fold.ts 7).
  version: 3,
  init: () => ({ tasks: initTasks(), work_units: initWorkUnits() }),
  apply: (state, event) => {
    state.tasks = applyTasks(state.tasks, event);
    state.work_units = applyWorkUnits(state.work_units, event);
    return state;
  },
  view: (state, now) => {
    try {
      return lspView(state, now, {});
    } catch (error) {
      if (error instanceof Refusal) return { v: 1 as const, type: 'last_stopping_point', generated_at: now };
      throw error;
    }
  },
  viewWith: lspView,
  serialize: (state) => ({ tasks: serializeTasks(state.tasks), work_units: state.work_units }),
  deserialize: (json) => {
    if (typeof json !== 'object' || json === null || !('tasks' in json) || !('work_units' in json)) throw new Error('not a last_stopping_point snapshot');
    return { tasks: deserializeTasks(json.tasks), work_units: json.work_units as WorkUnitsState };
  },
};

export const tasksViewProjection = tasksProjection('tasks', (state, now, args) => {
  const filter = str(args, 'state');
  return tasksEnvelope(state, viewContextFrom(args, now), {
    state: filter === undefined ? undefined : parseStateFilter(filter),
    sessionId: str(args, 'session_id'),
  });
});

// The replay views take their commands' arguments (tasks.md §11.3): `task <id>` and `session <id>`
// take the id as a positional argument, as `--task` / `--session-id` do.
export const taskViewProjection = tasksProjection('task', (state, now, args) =>
  taskEnvelope(state, viewContextFrom(args, now), required(withTarget(args, 'task'), 'task')),
);

export const sessionsViewProjection = tasksProjection('sessions', (state, now, args) => sessionsEnvelope(state, viewContextFrom(args, now)));

export const sessionViewProjection = tasksProjection('session', (state, now, args) =>
  sessionEnvelope(state, viewContextFrom(args, now), required(withTarget(args, 'session_id'), 'session_id')),
);

/** `args` with the positional target standing in for `key` when the flag was not given. */
function withTarget(args: ViewArgs, key: string): ViewArgs {
  return args[key] === undefined && args['target'] !== undefined ? { ...args, [key]: args['target'] } : args;
}

export const TASK_PROJECTIONS = [lastStoppingPointProjection, tasksViewProjection, taskViewProjection, sessionsViewProjection, sessionViewProjection] as const;
