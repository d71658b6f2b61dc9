import { Refusal } from '../deciders/refusal.js';
import { isTerminal, TaskState, TASK_STATES } from '../events/tasks/terms.js';

/**
 * The task machine compiled to a lookup table, for folding history fast (xstate's `transition()`
 * is far too slow per event for a replay). test/tasks/task-machine.test.ts proves it equals the machine's edges.
 */
export const LEGAL_TRANSITIONS: Readonly<Record<TaskState, readonly TaskState[]>> = {
  queued: [TaskState.running, TaskState.cancelled, TaskState.superseded],
  running: [TaskState.waiting_for_user, TaskState.blocked, TaskState.completed, TaskState.failed, TaskState.cancelled, TaskState.superseded],
  waiting_for_user: [TaskState.running, TaskState.completed, TaskState.failed, TaskState.cancelled, TaskState.superseded],
  blocked: [TaskState.running, TaskState.failed, TaskState.cancelled, TaskState.superseded],
  completed: [],
  failed: [],
  cancelled: [],
  superseded: [],
};

const LEGAL = new Set(TASK_STATES.flatMap((from) => LEGAL_TRANSITIONS[from].map((to) => `${from}>${to}`)));

export function isLegalTransition(from: TaskState, to: TaskState): boolean {
  return LEGAL.has(`${from}>${to}`);
}

/** The two message forms of §4.3, exactly. */
export function illegalTransitionMessage(taskId: string, from: TaskState, to: TaskState): string {
  return isTerminal(from)
    ? `Task ${taskId} is already terminal in state '${from}' — terminal tasks cannot transition.`
    : `Task ${taskId} cannot transition from '${from}' to '${to}' — not in the allowed transition set.`;
}

/** The typed refusal of §4.3 (pure: the CLI maps it to ILLEGAL_TRANSITION, exit 2). */
export class IllegalTaskTransitionError extends Refusal {
  override readonly name = 'IllegalTaskTransitionError';
  constructor(
    readonly taskId: string,
    readonly from: TaskState,
    readonly to: TaskState,
  ) {
    super('ILLEGAL_TRANSITION', illegalTransitionMessage(taskId, from, to), { task_id: taskId, from, to });
  }
}
