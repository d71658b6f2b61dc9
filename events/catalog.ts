import type { z } from 'zod';
import { INVALID, type Upcaster } from './compiled.js';
import type { AcceptedEvent, BatonEvent, RejectedEvent } from './baton-event.js';
import type { Rejection, StoredEvent } from './envelope.js';
import { streamCategory } from './patterns.js';
import { type FieldProblem, validateWith } from './validation.js';

/**
 * One event type: its payload schema, the stream categories it may be appended to, and the
 * upcasters that lift legacy stored shapes to today's shape on read. Upcasters run in order and
 * must leave a current shape unchanged.
 */
export interface EventDefinition<S extends z.ZodType = z.ZodType, T extends string = string> {
  readonly type: T;
  readonly schema: S;
  /** Stream categories (the part before `/`) this type may be appended to. */
  readonly streams: readonly string[];
  readonly description: string;
  readonly upcasters?: readonly Upcaster[];
  /** Recorded by Baton itself (e.g. the store's recovery report): `baton log append` refuses it. */
  readonly internal?: boolean;
}

/** One event of a list that shares its stream categories (see `eventsOn`). */
export type EventEntry<S extends z.ZodType = z.ZodType, T extends string = string> = Omit<EventDefinition<S, T>, 'streams'>;

type DefinitionsOf<E extends readonly EventEntry[]> = { readonly [K in keyof E]: E[K] extends EventEntry<infer S, infer T> ? EventDefinition<S, T> : never };

/**
 * A domain's events that are all appended to the same stream categories: one list, the categories
 * said once. Keeps each entry's literal type and schema, like `defineEvent`.
 */
export function eventsOn<const E extends readonly EventEntry[]>(streams: string | readonly string[], entries: E): DefinitionsOf<E> {
  const categories = typeof streams === 'string' ? [streams] : streams;
  // Array.map forgets the tuple's element types; each element is its entry plus the categories.
  return entries.map((entry) => ({ ...entry, streams: categories })) as unknown as DefinitionsOf<E>;
}

/** Keeps the literal `type` and the schema's type, so the typed event union can be derived from the definitions. */
export function defineEvent<const T extends string, S extends z.ZodType>(def: EventDefinition<S, T>): EventDefinition<S, T> {
  return def;
}

/**
 * What the catalog holds per event type: one check of its data (a compiled validator generated at
 * build time from the zod schema, or the schema itself for types defined at run time), its
 * streams and its upcasters. The check answers zod's output or INVALID; the zod schema is only
 * asked to word what is wrong (`loadSchemas`).
 */
export interface CatalogEntry {
  readonly type: string;
  readonly streams: readonly string[];
  readonly internal: boolean;
  readonly check: (data: unknown) => unknown;
  readonly upcasters: readonly Upcaster[];
}

export type DecodeResult = { ok: true; event: AcceptedEvent } | { ok: false; reason: Rejection['reason']; problems: FieldProblem[] };

export type NewEventCheck = { ok: true; data: Record<string, unknown> } | { ok: false; problems: FieldProblem[] };

/** Where a catalog finds the zod schemas that word its errors, when they are not loaded yet. */
export type SchemaSource = () => Promise<readonly EventDefinition[]>;

/** An entry whose check is the zod schema itself. */
export function entryOf(def: EventDefinition, check?: (data: unknown) => unknown): CatalogEntry {
  return {
    type: def.type,
    streams: def.streams,
    internal: def.internal === true,
    check:
      check ??
      ((data) => {
        const parsed = def.schema.safeParse(data);
        return parsed.success ? parsed.data : INVALID;
      }),
    upcasters: def.upcasters ?? [],
  };
}

/**
 * The union of every domain's event types: the one place an event's data is checked, on append
 * and on read. Every answer about a valid event comes from the entries alone; an invalid one is
 * worded by its zod schema once the schemas are loaded (`loadSchemas`, awaited by the caller that
 * reports: append, verify), and reported without the field otherwise. Nothing here throws to ask
 * for zod.
 */
export class EventCatalog {
  private readonly entries = new Map<string, CatalogEntry>();
  private schemas: Map<string, z.ZodType> | undefined;

  /**
   * `builtIn`: the entries are exactly the built-in catalog's, so a worker thread can rebuild it
   * (parallel verify). `definitions`: the zod schemas when the caller has them loaded already.
   */
  constructor(
    entries: readonly CatalogEntry[],
    private readonly source: SchemaSource,
    readonly builtIn = false,
    definitions?: readonly EventDefinition[],
  ) {
    for (const entry of entries) {
      if (this.entries.has(entry.type)) throw new Error(`event type ${entry.type} registered twice`);
      this.entries.set(entry.type, entry);
    }
    if (definitions !== undefined) this.schemas = schemaMap(definitions);
  }

  /** A catalog of exactly these definitions, each checked by its zod schema. */
  static of(definitions: readonly EventDefinition[]): EventCatalog {
    return new EventCatalog(
      definitions.map((def) => entryOf(def)),
      () => Promise.resolve(definitions),
      false,
      definitions,
    );
  }

  has(type: string): boolean {
    return this.entries.has(type);
  }

  get(type: string): CatalogEntry | undefined {
    return this.entries.get(type);
  }

  types(): string[] {
    return [...this.entries.keys()].sort();
  }

  /** Whether errors are worded by zod already (else `loadSchemas` first). */
  get schemasLoaded(): boolean {
    return this.schemas !== undefined;
  }

  /** Load the zod schemas that word errors. Idempotent. */
  async loadSchemas(): Promise<void> {
    if (this.schemas === undefined) this.schemas = schemaMap(await this.source());
  }

  /** Validation of a new event before it is appended: known type, allowed stream, valid data. */
  validateNew(type: string, stream: string, data: unknown): NewEventCheck {
    const entry = this.entries.get(type);
    if (!entry) return { ok: false, problems: [{ field: 'type', rule: `unknown event type "${type}" (known: ${this.types().join(', ')})` }] };
    const category = streamCategory(stream);
    if (!entry.streams.includes(category)) {
      return {
        ok: false,
        problems: [{ field: 'stream', rule: `${type} belongs on a stream under ${entry.streams.map((s) => `${s}/`).join(' or ')}, not "${stream}"` }],
      };
    }
    const checked = entry.check(data);
    if (checked !== INVALID) return { ok: true, data: checked as Record<string, unknown> };
    return { ok: false, problems: this.problemsOf(type, data) };
  }

  /**
   * Upcast a stored event's data to today's shape without validating it, for events this process
   * has just validated and appended. Types without upcasters pass through as the same object; the
   * caller must not mutate it.
   */
  upcast(event: StoredEvent): BatonEvent {
    // The one place a validated event is given its type without a check: the caller checked it.
    const data = this.upcastData(event);
    return (data === event.data ? event : withData(event, data)) as AcceptedEvent;
  }

  /** Upcast a stored event's data to today's shape and check it. Never throws. */
  decode(event: StoredEvent): DecodeResult {
    const accepted = this.accept(event);
    if (accepted !== undefined) return { ok: true, event: accepted };
    if (!this.entries.has(event.type)) return { ok: false, reason: 'unknown_type', problems: [{ field: 'type', rule: `unknown event type "${event.type}"` }] };
    return { ok: false, reason: 'invalid_data', problems: this.problemsOf(event.type, this.upcastData(event)) };
  }

  /**
   * The event decoded and typed, or undefined when its type is unknown or its data fails the type's
   * check (`decode` says why). The decoding boundary: data that passed its type's check is that
   * type's schema output. What a fold's runner calls for every event, so it allocates nothing else.
   */
  accept(event: StoredEvent): AcceptedEvent | undefined {
    const entry = this.entries.get(event.type);
    if (entry === undefined) return undefined;
    const checked = entry.check(upcastWith(entry.upcasters, event.data));
    return checked === INVALID ? undefined : (withData(event, checked as Record<string, unknown>) as AcceptedEvent);
  }

  /**
   * A stored event as the folds receive it, never throwing: accepted and typed, or marked
   * `rejected` with its upcast data as stored and the fields at fault (worded by zod when the
   * schemas are loaded).
   */
  toBatonEvent(event: StoredEvent): BatonEvent {
    const decoded = this.decode(event);
    if (decoded.ok) return decoded.event;
    const rejected: RejectedEvent = { ...event, data: this.upcastData(event), rejected: { reason: decoded.reason, problems: decoded.problems } };
    return rejected;
  }

  private upcastData(event: StoredEvent): Record<string, unknown> {
    return upcastWith(this.entries.get(event.type)?.upcasters ?? [], event.data);
  }

  /** What is wrong with `data`: zod's words when the schemas are loaded, else the type alone. */
  private problemsOf(type: string, data: unknown): FieldProblem[] {
    const schema = this.schemas?.get(type);
    if (schema === undefined) return [{ field: 'data', rule: `does not match the ${type} schema` }];
    const result = validateWith(schema, data, 'data');
    return result.ok ? [{ field: 'data', rule: `does not match the ${type} schema` }] : result.problems;
  }
}

/** Stored data lifted through a type's upcasters, in order (none: the data itself). */
function upcastWith(upcasters: readonly Upcaster[], data: Record<string, unknown>): Record<string, unknown> {
  let lifted = data;
  for (const upcast of upcasters) lifted = upcast(lifted);
  return lifted;
}

/**
 * The event with its data replaced, built as one object literal per envelope shape (with or
 * without an idempotency key, in a batch or not), in canonical key order: a replay builds one for
 * every event, and a spread of the stored event (the generic copy) cost a log written in batches
 * (every event has `batch_end`) a large share of its decoding time and garbage.
 */
function withData(event: StoredEvent, data: Record<string, unknown>): StoredEvent {
  const { v, seq, id, type, stream, at, actor, prev, hash } = event;
  const key = event.idempotency_key;
  const end = event.batch_end;
  if (key === undefined) {
    if (end === undefined) return { v, seq, id, type, stream, at, actor, data, prev, hash };
    return { v, seq, id, type, stream, at, actor, data, batch_end: end, prev, hash };
  }
  if (end === undefined) return { v, seq, id, type, stream, at, actor, data, idempotency_key: key, prev, hash };
  return { v, seq, id, type, stream, at, actor, data, idempotency_key: key, batch_end: end, prev, hash };
}

function schemaMap(definitions: readonly EventDefinition[]): Map<string, z.ZodType> {
  return new Map(definitions.map((def) => [def.type, def.schema]));
}
