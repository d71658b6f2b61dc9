import type { EventDefinition } from './catalog.js';
import { LOG_EVENTS } from './log.js';
import { NOTE_EVENTS } from './note.js';
import { FLOW_EVENTS } from './flow/index.js';
import { COORDINATION_EVENTS } from './coordination/index.js';
import { TASK_EVENTS } from './tasks/index.js';
import { WORK_UNIT_EVENTS } from './work-units/index.js';

/**
 * Every domain's event definitions. Each domain issue adds its list here. This module (and what it
 * imports) must not import generated code: the generators load it on a clean clone, before the
 * generated files exist.
 */
export const ALL_EVENT_DEFINITIONS = [
  ...NOTE_EVENTS,
  ...LOG_EVENTS,
  ...COORDINATION_EVENTS,
  ...FLOW_EVENTS,
  ...TASK_EVENTS,
  ...WORK_UNIT_EVENTS,
] as const satisfies readonly EventDefinition[];

/** One built-in definition, with its literal type and schema. */
export type BuiltInDefinition = (typeof ALL_EVENT_DEFINITIONS)[number];
