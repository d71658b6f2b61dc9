import type { EventCatalog } from './catalog.js';
import type { NewEventSchema } from './envelope.js';
import type { SignalSentData } from './coordination/signal.js';

/**
 * The zod side of the compiled validators, for the places that must stay synchronous (the fold,
 * `validateBatch`, the catalog). events/index.ts registers it as it loads, so every process that
 * built a catalog with `createCatalog()` has it. A process that did not (the CLI's `mem inbox`,
 * which validates with compiled code only) meets SchemasNotLoadedError the first time an input
 * fails a compiled check; the asynchronous caller then awaits `loadSchemas()` and retries, and the
 * error it reports is zod's own.
 */
export interface ZodSchemas {
  createCatalog: () => EventCatalog;
  NewEventSchema: typeof NewEventSchema;
  SignalSentData: typeof SignalSentData;
}

let registered: ZodSchemas | undefined;

export function registerSchemas(schemas: ZodSchemas): void {
  registered = schemas;
}

/** The zod schemas when loaded, else undefined. */
export function loadedSchemas(): ZodSchemas | undefined {
  return registered;
}

/** The zod schemas, or SchemasNotLoadedError (the caller loads them and retries). */
export function requireSchemas(why: string): ZodSchemas {
  if (registered === undefined) throw new SchemasNotLoadedError(why);
  return registered;
}

/** Load every zod schema of the catalog (events/index.ts registers them). */
export async function loadSchemas(): Promise<ZodSchemas> {
  if (registered === undefined) await import('./index.js');
  if (registered === undefined) throw new Error('events/index.js did not register the zod schemas');
  return registered;
}

/** A compiled check failed and only zod can say why (or decide): `await loadSchemas()`, then retry. */
export class SchemasNotLoadedError extends Error {
  constructor(why: string) {
    super(`the zod schemas are needed (${why}) but not loaded: await loadSchemas() and retry`);
    this.name = 'SchemasNotLoadedError';
  }
}

export function isSchemasNotLoaded(error: unknown): error is SchemasNotLoadedError {
  return error instanceof SchemasNotLoadedError;
}
