import { IllegalTaskTransitionError } from '../../machines/task-table.js';
import { ViewRefusal } from '../../projections/tasks/refusal.js';
import { BatonError, ErrorCode } from '../errors.js';

/** The pure refusals of the tasks core as CLI errors (exit codes from EXIT_CODES). */
export function asBatonError(error: unknown): unknown {
  if (error instanceof ViewRefusal) return new BatonError(error.code, error.message, error.details);
  if (error instanceof IllegalTaskTransitionError) {
    return new BatonError(ErrorCode.ILLEGAL_TRANSITION, error.message, { task_id: error.taskId, from: error.from, to: error.to });
  }
  return error;
}

/** Run `body`, rethrowing pure refusals as BatonErrors. */
export async function refusalsAsErrors<T>(body: () => Promise<T> | T): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw asBatonError(error);
  }
}
