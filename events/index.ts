import { EventCatalog, type EventDefinition } from './catalog.js';
import { NewEventSchema } from './envelope.js';
import { SignalSentData } from './coordination/signal.js';
import { registerSchemas } from './schema-loader.js';
import { LOG_EVENTS } from './log.js';
import { NOTE_EVENTS } from './note.js';
import { FLOW_EVENTS } from './flow/index.js';
import { COORDINATION_EVENTS } from './coordination/index.js';
import { TASK_EVENTS } from './tasks/index.js';
import { WORK_UNIT_EVENTS } from './work-units/index.js';

export * from './canonical.js';
export * from './catalog.js';
export * from './envelope.js';
export * from './log.js';
export * from './note.js';
export * from './patterns.js';
export * from './validation.js';

/** Every domain's event definitions. Each domain issue adds its list here. */
export const ALL_EVENT_DEFINITIONS: readonly EventDefinition[] = [...NOTE_EVENTS, ...LOG_EVENTS, ...COORDINATION_EVENTS, ...FLOW_EVENTS, ...TASK_EVENTS, ...WORK_UNIT_EVENTS];

export function createCatalog(extra: readonly EventDefinition[] = []): EventCatalog {
  return new EventCatalog([...ALL_EVENT_DEFINITIONS, ...extra]);
}

// The compiled validators' fallback (schema-loader.ts): whoever loads the catalog's schemas has zod's answers.
registerSchemas({ createCatalog: () => createCatalog(), NewEventSchema, SignalSentData });
