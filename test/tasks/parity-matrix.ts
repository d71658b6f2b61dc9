import type { TaskState } from '../../events/tasks/vocabulary.js';

/**
 * tasks.md's transition matrix, written out by hand from the spec (not derived from the machine),
 * so the tests that hold the machine and the binary against it check the code against the spec.
 */
export const TASK_PARITY_MATRIX: Readonly<Record<TaskState, readonly TaskState[]>> = {
  queued: ['running', 'cancelled', 'superseded'],
  running: ['waiting_for_user', 'blocked', 'completed', 'failed', 'cancelled', 'superseded'],
  waiting_for_user: ['running', 'completed', 'failed', 'cancelled', 'superseded'],
  blocked: ['running', 'failed', 'cancelled', 'superseded'],
  completed: [],
  failed: [],
  cancelled: [],
  superseded: [],
};
