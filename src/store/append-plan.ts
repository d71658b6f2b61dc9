import type { EventCatalog } from '../../events/catalog.js';
import { INVALID } from '../../events/compiled.js';
import type { NewEvent, StoredEvent } from '../../events/envelope.js';
import { canonicalValue, isJsonReady } from '../../events/canonical.js';
import { ENVELOPE_VERSION, IDEMPOTENCY_KEY_PATTERN } from '../../events/patterns.js';
import { NewEventSchema as CompiledNewEvent } from '../../events/validators.generated.js';
import { describeZodIssues, type FieldProblem } from '../../events/validation.js';
import { ConflictError, IdempotencyConflictError, invalidInput } from '../errors.js';
import type { AppendOptions, ExpectedVersion } from './contract.js';
import { nextUlid } from './event-id.js';
import { sha256Hex } from './hash.js';
import { contentDigest, type StoreIndex } from './store-index.js';

/**
 * The adapter-independent half of `append`: validate, check idempotency and expected versions
 * against the index, and build the envelopes (seq, id, prev, hash). Adapters supply the index under
 * their lock and write what this returns.
 */

export interface ValidatedBatch {
  /** Each `type` matches EVENT_TYPE_PATTERN and each `stream` STREAM_PATTERN (checkBatch checked them). */
  events: { type: string; stream: string; data: Record<string, unknown>; actor: string | undefined; at: string | undefined }[];
  /** The content digest an idempotency key is bound to; '' when the batch has no key (nothing reads it then). */
  digest: string;
  idempotencyKey: string | undefined;
  expected: Map<string, ExpectedVersion>;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * A new ULID that sorts after `previous` (the id of the event before it in the log), made at `now`
 * (milliseconds; the clock when absent). Each process
 * has its own ULID clock, so under concurrent appenders a fresh id can sort before the previous
 * event's; then the previous id plus one is used, which keeps id order = seq order in the log.
 */
export function newEventId(previous?: string, now?: number): string {
  const candidate = nextUlid(now);
  // The pattern is only needed for a previous id this one would be derived from.
  if (previous === undefined || candidate > previous || !ULID_PATTERN.test(previous)) return candidate;
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

/**
 * Validation that needs no store state; runs before the lock is taken. Throws INVALID_INPUT whose
 * problems name each field and rule: when a batch fails before the catalog's zod schemas are
 * loaded, they are loaded (the only place an append waits for zod) and the batch is checked again
 * to word the error.
 */
export async function validateBatch(catalog: EventCatalog, events: readonly NewEvent[], options: AppendOptions = {}): Promise<ValidatedBatch> {
  if (!Array.isArray(events) || events.length === 0) throw invalidInput('must hold at least one event', 'events');
  const first = checkBatch(catalog, events, options, undefined);
  if (first.ok) return first.batch;
  if (!catalog.schemasLoaded) {
    const [{ NewEventSchema }] = await Promise.all([import('../../events/envelope.js'), catalog.loadSchemas()]);
    const worded = checkBatch(catalog, events, options, NewEventSchema);
    if (worded.ok) return worded.batch;
    throw invalidInput(worded.problems);
  }
  throw invalidInput(first.problems);
}

/**
 * `validateBatch` without waiting: for batches the store builds itself (a recovery report), whose
 * problems, should there ever be any, are reported as the catalog can word them now.
 */
export function validateBatchNow(catalog: EventCatalog, events: readonly NewEvent[], options: AppendOptions = {}): ValidatedBatch {
  if (!Array.isArray(events) || events.length === 0) throw invalidInput('must hold at least one event', 'events');
  const result = checkBatch(catalog, events, options, undefined);
  if (result.ok) return result.batch;
  throw invalidInput(result.problems);
}

type BatchCheck = { ok: true; batch: ValidatedBatch } | { ok: false; problems: FieldProblem[] };

/** The envelope schema that words a malformed new event, when it is loaded. */
type EnvelopeSchema = { safeParse: (raw: unknown) => { success: true } | { success: false; error: Parameters<typeof describeZodIssues>[0] } };

function checkBatch(catalog: EventCatalog, events: readonly NewEvent[], options: AppendOptions, envelope: EnvelopeSchema | undefined): BatchCheck {
  const problems: FieldProblem[] = [];
  const validated: ValidatedBatch['events'] = [];
  events.forEach((raw, i) => {
    const prefix = events.length > 1 ? `events[${i}]` : '';
    const shape = CompiledNewEvent.parse(raw);
    if (shape === INVALID) {
      const parsed = envelope?.safeParse(raw);
      if (parsed !== undefined && !parsed.success) problems.push(...describeZodIssues(parsed.error, prefix));
      else problems.push({ field: prefix || 'event', rule: 'must be an object with type, stream and data (and optionally actor, at)' });
      return;
    }
    const checked = catalog.validateNew(shape.type, shape.stream, shape.data);
    if (!checked.ok) {
      problems.push(...checked.problems.map((p) => ({ field: prefix ? `${prefix}.${p.field}` : p.field, rule: p.rule })));
      return;
    }
    validated.push({ type: shape.type, stream: shape.stream, data: checked.data, actor: shape.actor, at: shape.at });
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
        if (!isExpectedVersion(value))
          problems.push({ field: `expected_version.${stream}`, rule: 'must be a whole number ≥ 0, "no_stream" or "stream_exists"' });
        else expected.set(stream, value);
      }
    } else if (!isExpectedVersion(ev)) {
      problems.push({ field: 'expected_version', rule: 'must be a whole number ≥ 0, "no_stream" or "stream_exists"' });
    } else {
      for (const e of validated) expected.set(e.stream, ev);
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  // The digest (a canonicalisation and a SHA-256 of the whole batch) only serves idempotency.
  return { ok: true, batch: { events: validated, digest: key !== undefined ? contentDigest(validated) : '', idempotencyKey: key, expected } };
}

function isExpectedVersion(value: unknown): value is ExpectedVersion {
  return value === 'no_stream' || value === 'stream_exists' || (typeof value === 'number' && Number.isInteger(value) && value >= 0);
}

/**
 * `bytes` are the events' stored lines (canonical JSON), each followed by a newline, in UTF-8: the
 * exact bytes a JSONL segment gets, encoded once, with each hash taken over them.
 */
export type AppendPlan = { kind: 'deduplicated'; first: number; last: number } | { kind: 'write'; events: StoredEvent[]; bytes: Buffer };

/** The stored lines of a plan's bytes (no newlines). */
export function planLines(bytes: Buffer): string[] {
  const lines = bytes.toString('utf8').split('\n');
  lines.pop();
  return lines;
}

export interface PlanContext {
  now: () => string;
  defaultActor: string;
  /** Id of the last event in the log, so new ids sort after it whichever process wrote it. */
  lastId?: string | undefined;
  /**
   * The plan's bytes may view the process's sealing buffer instead of a copy of it: for a caller
   * that writes them before anything seals again (the JSONL store writes them synchronously under
   * its lock). Without it the bytes are the batch's own.
   */
  borrowBytes?: boolean;
}

/** `,"hash":"`, the stored line's last key: copied in after the hashed bytes (no suffix string is built). */
const HASH_KEY = Buffer.from(',"hash":"', 'latin1');
/** `,"hash":"` + 64 hex digits + `"}` + newline. */
const HASH_SUFFIX_BYTES = 9 + 64 + 3;
let scratch: Buffer = Buffer.allocUnsafe(64 * 1024);

function grow(buffer: Buffer, used: number, needed: number): Buffer {
  const bigger = Buffer.allocUnsafe(Math.max(needed, buffer.length * 2));
  buffer.copy(bigger, 0, 0, used);
  return bigger;
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
 * The columns of a sealed batch as the PostgreSQL adapter sends them beside the lines, one entry
 * per event: the texts sealBatch printed into each line (`actors` and `data` as JSON, the others
 * as their plain values), so the server can require each line to be exactly its columns.
 */
export interface SealedColumns {
  ids: string[];
  types: string[];
  streams: string[];
  ats: string[];
  actorsJson: string[];
  dataJson: string[];
  hashes: string[];
}

export function emptySealedColumns(): SealedColumns {
  return { ids: [], types: [], streams: [], ats: [], actorsJson: [], dataJson: [], hashes: [] };
}

/** Where the last line sealLine wrote ends in `scratch` (a second result without an object per line). */
let sealedEnd = 0;

/**
 * Encodes a line's body once into `scratch` at `filled`; the hash is taken over those bytes, then
 * the closing brace is replaced by `hash` (the last envelope key) and the line's newline. Returns
 * the hash; the line ends at `sealedEnd`.
 */
function sealLine(body: string, filled: number): string {
  if (scratch.length < filled + body.length * 3 + HASH_SUFFIX_BYTES) scratch = grow(scratch, filled, filled + body.length * 3 + HASH_SUFFIX_BYTES);
  const written = scratch.write(body, filled, 'utf8');
  const hash = sha256Hex(scratch.subarray(filled, filled + written));
  let end = filled + written - 1;
  scratch.set(HASH_KEY, end);
  end += HASH_KEY.length;
  end += scratch.write(hash, end, 'latin1');
  scratch[end++] = 0x22; // "
  scratch[end++] = 0x7d; // }
  scratch[end++] = 0x0a; // newline
  sealedEnd = end;
  return hash;
}

/**
 * The stored event, in envelope order, without object spreads (a measurable share of a batch's
 * CPU). The usual shapes (no idempotency key; a multi-event batch or a single event) are one literal
 * each: adding keys one by one walks the object through a hidden-class transition per key.
 */
// Positional arguments: one call per event, and no object to carry them.
function storedEnvelope(
  e: NewEvent,
  seq: number,
  id: string,
  at: string,
  actor: string,
  batchEnd: number | undefined,
  key: string | undefined,
  prev: string,
  hash: string,
): StoredEvent {
  if (key === undefined) {
    return batchEnd !== undefined
      ? { v: ENVELOPE_VERSION, seq, id, type: e.type, stream: e.stream, at, actor, data: e.data, batch_end: batchEnd, prev, hash }
      : { v: ENVELOPE_VERSION, seq, id, type: e.type, stream: e.stream, at, actor, data: e.data, prev, hash };
  }
  const event = { v: ENVELOPE_VERSION, seq, id, type: e.type, stream: e.stream, at, actor, data: e.data, idempotency_key: key } as StoredEvent;
  if (batchEnd !== undefined) event.batch_end = batchEnd;
  event.prev = prev;
  event.hash = hash;
  return event;
}

/**
 * The envelopes of `batch` on top of `head` (seq, id, at, actor, prev, hash) and their stored lines,
 * with no check against the store: `planAppend` checks first; the PostgreSQL adapter lets its
 * append function check under the lock (and rebuilds on the new head when another writer was first).
 */
export function sealBatch(
  batch: ValidatedBatch,
  head: { seq: number; hash: string },
  ctx: PlanContext,
  columns?: SealedColumns,
): { events: StoredEvent[]; bytes: Buffer } {
  const index = head;
  const at = ctx.now();
  const batchEnd = batch.events.length > 1 ? index.seq + batch.events.length : undefined;
  let prev = index.hash;
  let lastId = ctx.lastId;
  const stored: StoredEvent[] = [];
  let filled = 0;
  // The canonical line is written out field by field in envelope order: every value is a string
  // or an integer this function controls, printed exactly as canonicalValue prints it (strings by
  // JSON.stringify, data by JSON.stringify when it is already in canonical shape), so the bytes are
  // canonicalEnvelope's without its intermediate object or its per-field shape checks. The
  // property test in test/seal-batch.property.test.ts holds the two equal.
  const keyPart = batch.idempotencyKey !== undefined ? `,"idempotency_key":${JSON.stringify(batch.idempotencyKey)}` : '';
  const tailPart = keyPart + (batchEnd !== undefined ? `,"batch_end":${batchEnd}` : '') + ',"prev":';
  const atJson = JSON.stringify(at);
  const actorJson = JSON.stringify(ctx.defaultActor);
  const events = batch.events;
  const opening = `{"v":${ENVELOPE_VERSION},"seq":`;
  // One clock reading for the batch's ids: within a millisecond nextUlid increments, so they still
  // strictly increase (and a clock read per event was a measurable share of sealing).
  const clock = Date.now();
  // The middle of a line, from the id's closing quote to `"data":`. Type and stream match their
  // patterns (no character JSON escapes), so each prints as itself in quotes; at and actor are
  // printed by JSON.stringify once per run of events that share them (most batches are one run).
  let lastType: string | undefined;
  let typePart = '';
  let lastAt: string | undefined;
  let lastActor: string | undefined;
  let atActorPart = '';
  let eventActorJson = actorJson;
  // The head's hash is printed by JSON.stringify; every later prev is a hash this loop made (hex).
  let prevJson = JSON.stringify(prev);
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const seq = index.seq + i + 1;
    const id = (lastId = newEventId(lastId, clock));
    const eventAt = e.at ?? at;
    const actor = e.actor ?? ctx.defaultActor;
    if (e.type !== lastType) {
      lastType = e.type;
      typePart = '","type":"' + e.type + '","stream":"';
    }
    if (eventAt !== lastAt || actor !== lastActor) {
      lastAt = eventAt;
      lastActor = actor;
      eventActorJson = e.actor === undefined ? actorJson : JSON.stringify(actor);
      atActorPart = `","at":${e.at === undefined ? atJson : JSON.stringify(eventAt)},"actor":${eventActorJson},"data":`;
    }
    const dataJson = isJsonReady(e.data) ? JSON.stringify(e.data) : canonicalValue(e.data);
    const body = opening + seq + ',"id":"' + id + typePart + e.stream + atActorPart + dataJson + tailPart + prevJson + '}';
    const hash = sealLine(body, filled);
    filled = sealedEnd;
    stored.push(storedEnvelope(e, seq, id, eventAt, actor, batchEnd, batch.idempotencyKey, prev, hash));
    if (columns !== undefined) {
      columns.ids.push(id);
      columns.types.push(e.type);
      columns.streams.push(e.stream);
      columns.ats.push(eventAt);
      columns.actorsJson.push(eventActorJson);
      columns.dataJson.push(dataJson);
      columns.hashes.push(hash);
    }
    prev = hash;
    prevJson = '"' + hash + '"';
  }
  // The scratch buffer is shared by every batch of the process: the batch gets its own copy unless
  // the caller writes it before the next seal (borrowBytes).
  return { events: stored, bytes: ctx.borrowBytes === true ? scratch.subarray(0, filled) : Buffer.from(scratch.subarray(0, filled)) };
}

/** Fold freshly written events into the index (after a successful write). */
export function recordWritten(index: StoreIndex, events: readonly StoredEvent[], digest: string, key: string | undefined): void {
  for (const e of events) index.streams.set(e.stream, (index.streams.get(e.stream) ?? 0) + 1);
  const last = events.at(-1)!;
  index.seq = last.seq;
  index.hash = last.hash;
  if (key !== undefined) index.idempotency.set(key, { digest, first: events[0]!.seq, last: last.seq });
}
