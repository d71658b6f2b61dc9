import { EventCatalog, type DecodeResult, type EventDefinition } from './catalog.js';
import { INVALID } from './compiled.js';
import type { DecodedEvent, StoredEvent } from './envelope.js';
import { streamCategory } from './patterns.js';
import { loadedSchemas, loadSchemas, requireSchemas } from './schema-loader.js';
import { COMPILED_EVENT_TYPES, UPCASTERS } from './validators.generated.js';

/**
 * The event catalog without zod until zod is needed: the read path (`upcast`) and the happy path of
 * validation (`validateNew`/`decode` of a compiled type whose data passes its compiled check)
 * answer from the compiled validators of events/validators.generated.ts. Anything else — a type
 * without a compiled validator, a wrong stream, data that fails its check, `has`/`get`/`types` —
 * is the full catalog's answer, from the zod schemas (schema-loader.ts): when they are not loaded
 * yet such a call throws SchemasNotLoadedError, which the asynchronous caller (the JSONL store's
 * append) answers by loading them and retrying. So its answers, errors included, are exactly
 * createCatalog()'s (test/compiled-validators.test.ts).
 */
export class CompiledEventCatalog extends EventCatalog {
  private full: EventCatalog | undefined;

  constructor() {
    super([]);
  }

  /** The full catalog once the zod schemas are loaded. */
  private fullCatalog(): EventCatalog | undefined {
    if (this.full === undefined) {
      const schemas = loadedSchemas();
      if (schemas !== undefined) this.full = schemas.createCatalog();
    }
    return this.full;
  }

  private requireFull(why: string): EventCatalog {
    return this.fullCatalog() ?? (this.full = requireSchemas(why).createCatalog());
  }

  /** Load the zod schemas, after which every answer is the full catalog's. */
  async loadSchemas(): Promise<EventCatalog> {
    await loadSchemas();
    return this.requireFull('loading');
  }

  override register(...defs: EventDefinition[]): this {
    // The constructor registers nothing; a compiled catalog is createCatalog()'s, never extended.
    if (defs.length > 0) throw new Error('a CompiledEventCatalog cannot register definitions: use createCatalog(extra)');
    return this;
  }

  override has(type: string): boolean {
    return this.requireFull(`has(${type})`).has(type);
  }

  override get(type: string): EventDefinition | undefined {
    return this.requireFull(`get(${type})`).get(type);
  }

  override types(): string[] {
    return this.requireFull('types()').types();
  }

  override validateNew(type: string, stream: string, data: unknown): ReturnType<EventCatalog['validateNew']> {
    const entry = COMPILED_EVENT_TYPES[type];
    if (entry !== undefined && entry.streams.includes(streamCategory(stream))) {
      const parsed = entry.data.parse(data);
      if (parsed !== INVALID) return { ok: true, data: parsed as Record<string, unknown> };
    }
    return this.requireFull(`validateNew(${type})`).validateNew(type, stream, data);
  }

  override upcast(event: StoredEvent): DecodedEvent {
    const upcasters = UPCASTERS[event.type];
    if (upcasters === undefined || upcasters.length === 0) return event;
    let data = event.data;
    for (const upcast of upcasters) data = upcast(data);
    return { ...event, data };
  }

  override decode(event: StoredEvent): DecodeResult {
    const entry = COMPILED_EVENT_TYPES[event.type];
    if (entry !== undefined) {
      const upcast = this.upcast(event);
      const parsed = entry.data.parse(upcast.data);
      if (parsed !== INVALID) return { ok: true, event: { ...upcast, data: parsed as Record<string, unknown> } };
    }
    return this.requireFull(`decode(${event.type})`).decode(event);
  }
}
