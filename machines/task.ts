import { setup, type SnapshotFrom } from 'xstate';
import { TaskState, TASK_STATES } from '../events/tasks/vocabulary.js';

/**
 * The task machine (tasks.md §4): exactly the eight states and the 18 legal transitions of the
 * parity matrix; the four terminal states are final. It is the single definition of legality:
 * commands ask it before appending, and the fold's fast table (task-table.ts) is derived from it
 * and property-tested against it.
 *
 * One event type per target state, `to.<state>`. The guard `notSupersededBySelf` refuses a task
 * superseded by itself (X8) on every move into `superseded`.
 */
export interface TaskMachineContext {
  task_id: string;
}

export type TaskMachineEvent = { type: `to.${TaskState}`; superseded_by?: string };

export function toEvent(to: TaskState, supersededBy?: string): TaskMachineEvent {
  return supersededBy === undefined ? { type: `to.${to}` } : { type: `to.${to}`, superseded_by: supersededBy };
}

/** Every event the machine knows, for graph traversal. */
export const ALL_TASK_EVENTS: readonly TaskMachineEvent[] = TASK_STATES.map((s) => toEvent(s));

const supersede = { target: TaskState.superseded, guard: 'notSupersededBySelf' } as const;

export const taskMachine = setup({
  types: {
    context: {} as TaskMachineContext,
    events: {} as TaskMachineEvent,
    input: {} as { task_id: string },
  },
  guards: {
    notSupersededBySelf: ({ context, event }) => event.superseded_by === undefined || event.superseded_by !== context.task_id,
  },
}).createMachine({
  id: 'task',
  initial: TaskState.queued,
  context: ({ input }) => ({ task_id: input.task_id }),
  states: {
    queued: {
      on: { 'to.running': TaskState.running, 'to.cancelled': TaskState.cancelled, 'to.superseded': supersede },
    },
    running: {
      on: {
        'to.waiting_for_user': TaskState.waiting_for_user,
        'to.blocked': TaskState.blocked,
        'to.completed': TaskState.completed,
        'to.failed': TaskState.failed,
        'to.cancelled': TaskState.cancelled,
        'to.superseded': supersede,
      },
    },
    waiting_for_user: {
      on: {
        'to.running': TaskState.running,
        'to.completed': TaskState.completed,
        'to.failed': TaskState.failed,
        'to.cancelled': TaskState.cancelled,
        'to.superseded': supersede,
      },
    },
    blocked: {
      on: { 'to.running': TaskState.running, 'to.failed': TaskState.failed, 'to.cancelled': TaskState.cancelled, 'to.superseded': supersede },
    },
    completed: { type: 'final' },
    failed: { type: 'final' },
    cancelled: { type: 'final' },
    superseded: { type: 'final' },
  },
});

export type TaskSnapshot = SnapshotFrom<typeof taskMachine>;

/** A snapshot of the machine sitting in `state` for task `taskId`. */
export function taskSnapshotIn(state: TaskState, taskId: string): TaskSnapshot {
  return taskMachine.resolveState({ value: state, context: { task_id: taskId } });
}

/** Does the machine allow `from → to` (with this superseding task, when given)? */
export function machineAllows(taskId: string, from: TaskState, to: TaskState, supersededBy?: string): boolean {
  return taskSnapshotIn(from, taskId).can(toEvent(to, supersededBy));
}
