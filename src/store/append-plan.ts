import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';
import type { EventCatalog } from '../../events/catalog.js';
import { INVALID } from '../../events/compiled.js';
import type { NewEvent, StoredEvent } from '../../events/envelope.js';
import { ENVELOPE_VERSION, IDEMPOTENCY_KEY_PATTERN } from '../../events/patterns.js';
import { requireSchemas } from '../../events/schema-loader.js';
import { NewEventSchema as CompiledNewEvent } from '../../events/validators.generated.js';
import { describeZodIssues, type FieldProblem } from '../../events/validation.js';
import { ConflictError, IdempotencyConflictError, invalidInput } from '../errors.js';
import type { AppendOptions, ExpectedVersion } from './contract.js';
import { sealEvent } from './hash.js';
import { contentDigest, type StoreIndex } from './store-index.js';

/**
 * The adapter-independent half of `append`: validate, check idempotency and expected versions
 * against the index, and build the envelopes (seq, id, prev, hash). Adapters supply the index under
 * their lock and write what this returns.
 */

export interface ValidatedBatch {
  events: { type: string; stream: string; data: Record<string, unknown>; actor: string | undefined; at: string | undefined }[];
  /** The content digest an idempotency key is bound to; '' when the batch has no key (nothing reads it then). */
  digest: string;
  idempotencyKey: string | undefined;
  expected: Map<string, ExpectedVersion>;
}

/**
 * ulid's default randomness makes one `crypto.getRandomValues` call per character, 16 per id: between
 * fsyncs (cold caches) that cost ~35 µs an id, a tenth of a single-event append. The same
 * cryptographic bytes drawn from a pooled buffer cut that to ~10 µs. byte / 256 is uniform in [0, 1), and
 * ulid maps it to a base-32 digit by floor(x * 32), i.e. the byte's top 5 bits.
 */
const randomPool = Buffer.allocUnsafe(4096);
let randomAt = randomPool.length;
function pooledRandom(): number {
  if (randomAt >= randomPool.length) {
    randomFillSync(randomPool);
    randomAt = 0;
  }
  return randomPool[randomAt++]! / 256;
}

const nextUlid = monotonicFactory(pooledRandom);
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A new ULID that sorts after `previous` (the id of the event before it in the log). Each process
 * has its own ULID clock, so under concurrent appenders a fresh id can sort before the previous
 * event's; then the previous id plus one is used, which keeps id order = seq order in the log.
 */
export function newEventId(previous?: string): string {
  const candidate = nextUlid();
  if (previous === undefined || candidate > previous || !/^[0-9A-HJKMNP-TV-Z]{26}$/.test(previous)) return candidate;
  return incrementCrockford(previous) ?? candidate;
}

function incrementCrockford(id: string): string | undefined {
  const chars = id.split('');
  for (let i = chars.length - 1; i >= 0; i--) {
    const digit = CROCKFORD.indexOf(chars[i]!);
    if (digit < CROCKFORD.length - 1) {
      chars[i] = CROCKFORD[digit + 1]!;
      return chars.join('');
    }
    chars[i] = '0';
  }
  return undefined;
}

/** Validation that needs no store state; runs before the lock is taken. Throws INVALID_INPUT. */
export function validateBatch(catalog: EventCatalog, events: readonly NewEvent[], options: AppendOptions = {}): ValidatedBatch {
  if (!Array.isArray(events) || events.length === 0) throw invalidInput('must hold at least one event', 'events');
  const problems: FieldProblem[] = [];
  const validated: ValidatedBatch['events'] = [];
  events.forEach((raw, i) => {
    const prefix = events.length > 1 ? `events[${i}]` : '';
    // The compiled check (no zod loaded) settles a well-formed event; zod words what is wrong
    // with the rest (SchemasNotLoadedError until it is loaded: the caller loads it and retries).
    const fast = CompiledNewEvent.parse(raw);
    const shape = fast !== INVALID ? { success: true as const, data: fast } : requireSchemas('an invalid new event').NewEventSchema.safeParse(raw);
    if (!shape.success) {
      problems.push(...describeZodIssues(shape.error, prefix));
      return;
    }
    const checked = catalog.validateNew(shape.data.type, shape.data.stream, shape.data.data);
    if (!checked.ok) {
      problems.push(...checked.problems.map((p) => ({ field: prefix ? `${prefix}.${p.field}` : p.field, rule: p.rule })));
      return;
    }
    validated.push({ type: shape.data.type, stream: shape.data.stream, data: checked.data, actor: shape.data.actor, at: shape.data.at });
  });
  const key = options.idempotencyKey;
  if (key !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    problems.push({ field: 'idempotency_key', rule: 'must be 1–200 printable ASCII characters without spaces' });
  }
  const expected = new Map<string, ExpectedVersion>();
  const ev = options.expectedVersion;
  if (ev !== undefined) {
    if (typeof ev === 'object') {
      for (const [stream, value] of Object.entries(ev)) {
        if (!isExpectedVersion(value)) problems.push({ field: `expected_version.${stream}`, rule: 'must be a whole number ≥ 0, "no_stream" or "stream_exists"' });
        else expected.set(stream, value);
      }
    } else if (!isExpectedVersion(ev)) {
      problems.push({ field: 'expected_version', rule: 'must be a whole number ≥ 0, "no_stream" or "stream_exists"' });
    } else {
      for (const e of validated) expected.set(e.stream, ev);
    }
  }
  if (problems.length > 0) throw invalidInput(problems);
  // The digest (a canonicalisation and a SHA-256 of the whole batch) only serves idempotency.
  return { events: validated, digest: key !== undefined ? contentDigest(validated) : '', idempotencyKey: key, expected };
}

function isExpectedVersion(value: unknown): value is ExpectedVersion {
  return value === 'no_stream' || value === 'stream_exists' || (typeof value === 'number' && Number.isInteger(value) && value >= 0);
}

/** `lines` are the events' stored lines (canonical JSON, no newline), computed once with the hash. */
export type AppendPlan = { kind: 'deduplicated'; first: number; last: number } | { kind: 'write'; events: StoredEvent[]; lines: string[] };

export interface PlanContext {
  now: () => string;
  defaultActor: string;
  /** Id of the last event in the log, so new ids sort after it whichever process wrote it. */
  lastId?: string | undefined;
}

/** Decide the append against the current index. Throws CONFLICT or IDEMPOTENCY_CONFLICT. */
export function planAppend(batch: ValidatedBatch, index: StoreIndex, ctx: PlanContext): AppendPlan {
  if (batch.idempotencyKey !== undefined) {
    const seen = index.idempotency.get(batch.idempotencyKey);
    if (seen) {
      if (seen.digest !== batch.digest) throw new IdempotencyConflictError(batch.idempotencyKey);
      return { kind: 'deduplicated', first: seen.first, last: seen.last };
    }
  }
  for (const [stream, expected] of batch.expected) {
    const actual = index.streams.get(stream) ?? 0;
    const ok = expected === 'no_stream' ? actual === 0 : expected === 'stream_exists' ? actual > 0 : actual === expected;
    if (!ok) {
      const wanted = expected === 'no_stream' ? 'no stream' : expected === 'stream_exists' ? 'an existing stream' : `version ${expected}`;
      throw new ConflictError(`stream ${stream} is at version ${actual}, expected ${wanted}`, { stream, expected, actual });
    }
  }
  return { kind: 'write', ...sealBatch(batch, index, ctx) };
}

/**
 * The envelopes of `batch` on top of `head` (seq, id, at, actor, prev, hash) and their stored lines,
 * with no check against the store: `planAppend` checks first; the PostgreSQL adapter lets its
 * append function check under the lock (and rebuilds on the new head when another writer was first).
 */
export function sealBatch(batch: ValidatedBatch, head: { seq: number; hash: string }, ctx: PlanContext): { events: StoredEvent[]; lines: string[] } {
  const index = head;
  const at = ctx.now();
  const batchEnd = batch.events.length > 1 ? index.seq + batch.events.length : undefined;
  let prev = index.hash;
  let lastId = ctx.lastId;
  const stored: StoredEvent[] = [];
  const lines: string[] = [];
  batch.events.forEach((e, i) => {
    // Built key by key in envelope order, without object spreads (they cost ~2 µs an event here).
    const base: Omit<StoredEvent, 'hash'> = {
      v: ENVELOPE_VERSION,
      seq: index.seq + i + 1,
      id: (lastId = newEventId(lastId)),
      type: e.type,
      stream: e.stream,
      at: e.at ?? at,
      actor: e.actor ?? ctx.defaultActor,
      data: e.data,
    } as Omit<StoredEvent, 'hash'>;
    if (batch.idempotencyKey !== undefined) base.idempotency_key = batch.idempotencyKey;
    if (batchEnd !== undefined) base.batch_end = batchEnd;
    base.prev = prev;
    const sealed = sealEvent(base);
    stored.push(sealed.event);
    lines.push(sealed.line);
    prev = sealed.event.hash;
  });
  return { events: stored, lines };
}

/** Fold freshly written events into the index (after a successful write). */
export function recordWritten(index: StoreIndex, events: readonly StoredEvent[], digest: string, key: string | undefined): void {
  for (const e of events) index.streams.set(e.stream, (index.streams.get(e.stream) ?? 0) + 1);
  const last = events.at(-1)!;
  index.seq = last.seq;
  index.hash = last.hash;
  if (key !== undefined) index.idempotency.set(key, { digest, first: events[0]!.seq, last: last.seq });
}
