import { EventCatalog, entryOf, type EventDefinition } from './catalog.js';
import { ALL_EVENT_DEFINITIONS } from './definitions.js';
import { COMPILED_EVENT_TYPES } from './validators.generated.js';

export type * from './baton-event.js';
export * from './canonical.js';
export * from './catalog.js';
export * from './envelope.js';
export * from './log.js';
export * from './note.js';
export * from './patterns.js';
export * from './validation.js';

export { ALL_EVENT_DEFINITIONS } from './definitions.js';

/**
 * The catalog with the zod schemas loaded (errors worded from the start), plus `extra` types
 * defined at run time (tests, conformance runs). Built-in types are checked by their compiled
 * validators, extra ones by their schemas.
 */
export function createCatalog(extra: readonly EventDefinition[] = []): EventCatalog {
  const definitions = [...ALL_EVENT_DEFINITIONS, ...extra];
  const entries = [...ALL_EVENT_DEFINITIONS.map((def) => entryOf(def, COMPILED_EVENT_TYPES[def.type]?.data.parse)), ...extra.map((def) => entryOf(def))];
  return new EventCatalog(entries, () => Promise.resolve(definitions), extra.length === 0, definitions);
}
