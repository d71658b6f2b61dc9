import { SUBAGENT_EVENTS } from './subagent-events.js';
import { TASK_LIFECYCLE_EVENTS } from './task-events.js';

export * from './ids.js';
export * from './ownership.js';
export * from './subagent-events.js';
export * from './task-events.js';
export * from './vocabulary.js';

export const TASK_EVENTS = [...TASK_LIFECYCLE_EVENTS, ...SUBAGENT_EVENTS] as const;
