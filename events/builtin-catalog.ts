import { EventCatalog, type CatalogEntry } from './catalog.js';
import { COMPILED_EVENT_TYPES, UPCASTERS } from './validators.generated.js';

/**
 * The built-in catalog without loading zod: every type's compiled check, streams and upcasters
 * come from the generated module. The zod schemas (events/index.ts) are loaded only when an
 * error is to be worded (`EventCatalog.loadSchemas`). Answers equal createCatalog()'s
 * (test/compiled-validators.test.ts).
 */
export function builtInCatalog(): EventCatalog {
  const entries: CatalogEntry[] = Object.entries(COMPILED_EVENT_TYPES).map(([type, entry]) => ({
    type,
    streams: entry.streams,
    internal: entry.internal === true,
    check: entry.data.parse,
    upcasters: UPCASTERS[type] ?? [],
  }));
  return new EventCatalog(entries, () => import('./definitions.js').then((m) => m.ALL_EVENT_DEFINITIONS), true);
}
