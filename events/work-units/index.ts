import { DEFINITION_EVENTS } from './definition.js';
import { GUARD_EVENTS } from './guard.js';
import { LIFECYCLE_EVENTS } from './lifecycle.js';
import { LUMENFLOW_EVENTS } from './lumenflow.js';
import { OBSERVATION_EVENTS } from './observations.js';
import { ORCHESTRATION_EVENTS } from './orchestration.js';

export * from './definition.js';
export * from './guard.js';
export * from './lifecycle.js';
export * from './lumenflow.js';
export * from './observations.js';
export * from './orchestration.js';
export * from './vocabulary.js';

export const WORK_UNIT_EVENTS = [
  ...DEFINITION_EVENTS,
  ...LIFECYCLE_EVENTS,
  ...ORCHESTRATION_EVENTS,
  ...OBSERVATION_EVENTS,
  ...LUMENFLOW_EVENTS,
  ...GUARD_EVENTS,
] as const;
