import { z } from 'zod';
import { ERROR_CLASSES, PR_STATES, TASK_STATES, type ErrorClass, type PrState, type TaskState } from './terms.js';

/** The task enums (terms.ts, zod-free) and the zod schemas built from them. */
export * from './terms.js';

export const taskState = z.enum(TASK_STATES as [TaskState, ...TaskState[]], `must be one of ${TASK_STATES.join(', ')}`);
export const errorClass = z.enum(ERROR_CLASSES as [ErrorClass, ...ErrorClass[]], `must be one of ${ERROR_CLASSES.join(', ')}`);
export const prState = z.enum(PR_STATES as [PrState, ...PrState[]], `must be one of ${PR_STATES.join(', ')}`);

/** Non-empty free text with a bound. */
export const text = (max: number) => z.string().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
