import type { z } from 'zod';
import type { DecodedEvent, StoredEvent } from './envelope.js';
import { streamCategory } from './patterns.js';
import { type FieldProblem, validateWith } from './validation.js';

/**
 * One event type: its payload schema, the stream categories it may be appended to, and the
 * upcasters that lift legacy stored shapes to today's shape on read. Upcasters run in order and
 * must leave a current shape unchanged.
 */
export interface EventDefinition<S extends z.ZodType = z.ZodType> {
  readonly type: string;
  readonly schema: S;
  /** Stream categories (the part before `/`) this type may be appended to. */
  readonly streams: readonly string[];
  readonly description: string;
  readonly upcasters?: readonly ((data: Record<string, unknown>) => Record<string, unknown>)[];
  /** Recorded by Baton itself (e.g. the store's recovery report): `baton log append` refuses it. */
  readonly internal?: boolean;
}

export function defineEvent<S extends z.ZodType>(def: EventDefinition<S>): EventDefinition<S> {
  return def;
}

export type DecodeResult =
  | { ok: true; event: DecodedEvent }
  | { ok: false; reason: 'unknown_type' | 'invalid_data'; problems: FieldProblem[] };

/** The union of every domain's event types. Domains register their definitions at import time. */
export class EventCatalog {
  private readonly definitions = new Map<string, EventDefinition>();

  constructor(definitions: readonly EventDefinition[] = []) {
    for (const def of definitions) this.register(def);
  }

  register(...defs: EventDefinition[]): this {
    for (const def of defs) {
      if (this.definitions.has(def.type)) throw new Error(`event type ${def.type} registered twice`);
      this.definitions.set(def.type, def);
    }
    return this;
  }

  has(type: string): boolean {
    return this.definitions.has(type);
  }

  get(type: string): EventDefinition | undefined {
    return this.definitions.get(type);
  }

  types(): string[] {
    return [...this.definitions.keys()].sort();
  }

  /** Validation of a new event before it is appended: known type, allowed stream, valid data. */
  validateNew(type: string, stream: string, data: unknown): { ok: true; data: Record<string, unknown> } | { ok: false; problems: FieldProblem[] } {
    const def = this.definitions.get(type);
    if (!def) {
      return { ok: false, problems: [{ field: 'type', rule: `unknown event type "${type}" (known: ${this.types().join(', ')})` }] };
    }
    const category = streamCategory(stream);
    if (!def.streams.includes(category)) {
      return {
        ok: false,
        problems: [{ field: 'stream', rule: `${type} belongs on a stream under ${def.streams.map((s) => `${s}/`).join(' or ')}, not "${stream}"` }],
      };
    }
    const result = validateWith(def.schema, data, 'data');
    if (!result.ok) return result;
    return { ok: true, data: result.value as Record<string, unknown> };
  }

  /**
   * Upcast a stored event's data to today's shape without validating it: the fast path for
   * replaying Baton's own verified log (zod costs ~2.9 µs an event; the replay budget is
   * ≥200,000 events/s). Unknown types, and types without upcasters, pass through as the same
   * object; the caller must not mutate it.
   */
  upcast(event: StoredEvent): DecodedEvent {
    const upcasters = this.definitions.get(event.type)?.upcasters;
    if (upcasters === undefined || upcasters.length === 0) return event;
    let data = event.data;
    for (const upcast of upcasters) data = upcast(data);
    return { ...event, data };
  }

  /** Upcast a stored event's data to today's shape and validate it. Never throws. */
  decode(event: StoredEvent): DecodeResult {
    const def = this.definitions.get(event.type);
    if (!def) return { ok: false, reason: 'unknown_type', problems: [{ field: 'type', rule: `unknown event type "${event.type}"` }] };
    let data = event.data;
    for (const upcast of def.upcasters ?? []) data = upcast(data);
    const result = validateWith(def.schema, data, 'data');
    if (!result.ok) return { ok: false, reason: 'invalid_data', problems: result.problems };
    return { ok: true, event: { ...event, data: result.value as Record<string, unknown> } };
  }
}
