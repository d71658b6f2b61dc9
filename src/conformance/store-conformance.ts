import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NewEvent, StoredEvent } from '../../events/envelope.js';
import { GENESIS_HASH } from '../../events/patterns.js';
import { isBatonError, type BatonError } from '../errors.js';
import type { AppendOptions, AppendResult, EventStore, ExpectedVersion, ReadOptions } from '../store/contract.js';
import { hashEvent } from '../store/hash.js';
import { refusal, sleep, waitUntil } from './async-checks.js';

/**
 * The adapter conformance suite: every behaviour of the store contract (architecture.md, "The store
 * contract"), one `it` per behaviour, plus two fast-check properties (a reference model of append,
 * and concurrent appenders). Any adapter runs it by handing over a factory; nothing here knows how
 * an adapter keeps its log.
 */

export interface ConformanceHarness {
  /** A fresh, empty store. */
  store: EventStore;
  /**
   * A second independent handle on the same backing log (JSONL: a new store on the same workspace;
   * PostgreSQL: a new connection; memory: the same instance).
   */
  openAnother(): Promise<EventStore>;
  /** Close every handle and remove whatever backs the log. */
  cleanup(): Promise<void>;
}

export type ConformanceFactory = () => Promise<ConformanceHarness>;

const NOTE = 'note.recorded';

function note(stream: string, text: string, extra: Partial<Pick<NewEvent, 'at' | 'actor'>> = {}): NewEvent {
  return { type: NOTE, stream, data: { text }, ...extra };
}

async function readAll(store: EventStore, options?: ReadOptions): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const event of store.read(options)) out.push(event);
  return out;
}

const waitFor = (condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> => waitUntil(condition, what, timeoutMs);

const seqsOf = (events: readonly StoredEvent[]): number[] => events.map((e) => e.seq);
const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

function withoutHash(event: StoredEvent): Omit<StoredEvent, 'hash'> {
  const { hash: _hash, ...rest } = event;
  return rest;
}

// ---- the reference model for the append property ---------------------------------------------------

type Outcome =
  | { kind: 'written'; seqs: number[] }
  | { kind: 'deduplicated'; events: StoredEvent[] }
  | { kind: 'CONFLICT' }
  | { kind: 'IDEMPOTENCY_CONFLICT' };

/** What append should do, computed from nothing but stream versions, keys and the head. */
class ReferenceModel {
  readonly log: StoredEvent[] = [];
  private readonly versions = new Map<string, number>();
  private readonly keys = new Map<string, { digest: string; events: StoredEvent[] }>();

  get headSeq(): number {
    return this.log.length;
  }

  get headHash(): string {
    return this.log.at(-1)?.hash ?? GENESIS_HASH;
  }

  version(stream: string): number {
    return this.versions.get(stream) ?? 0;
  }

  static digest(events: readonly NewEvent[]): string {
    return JSON.stringify(events.map((e) => [e.type, e.stream, e.data['text']]));
  }

  predict(events: readonly NewEvent[], options: AppendOptions): Outcome {
    const key = options.idempotencyKey;
    if (key !== undefined) {
      const seen = this.keys.get(key);
      if (seen) return seen.digest === ReferenceModel.digest(events) ? { kind: 'deduplicated', events: seen.events } : { kind: 'IDEMPOTENCY_CONFLICT' };
    }
    const ev = options.expectedVersion;
    const expected: [string, ExpectedVersion][] =
      ev === undefined ? [] : typeof ev === 'object' ? Object.entries(ev) : [...new Set(events.map((e) => e.stream))].map((s) => [s, ev]);
    for (const [stream, want] of expected) {
      const actual = this.version(stream);
      const ok = want === 'no_stream' ? actual === 0 : want === 'stream_exists' ? actual > 0 : actual === want;
      if (!ok) return { kind: 'CONFLICT' };
    }
    return { kind: 'written', seqs: events.map((_, i) => this.headSeq + i + 1) };
  }

  commit(stored: readonly StoredEvent[], events: readonly NewEvent[], key: string | undefined): void {
    for (const e of stored) {
      this.log.push(e);
      this.versions.set(e.stream, this.version(e.stream) + 1);
    }
    if (key !== undefined) this.keys.set(key, { digest: ReferenceModel.digest(events), events: [...stored] });
  }
}

const MODEL_STREAMS = ['note/a', 'note/b', 'note/c'] as const;
const MODEL_KEYS = ['k1', 'k2', 'k3'] as const;

/** An expected version chosen either outright or relative to the model's current version. */
type VersionChoice = { fixed: ExpectedVersion } | { relative: -1 | 0 | 1 };

interface AppendCommand {
  kind: 'append';
  /** Which of two handles on the same log sends it. */
  via: 0 | 1;
  events: { stream: string; text: string }[];
  expected: undefined | { single: VersionChoice } | { perStream: VersionChoice[] };
  key: string | undefined;
}
interface ReplayCommand {
  kind: 'replay';
  via: 0 | 1;
  pick: number;
}
type ModelCommand = AppendCommand | ReplayCommand;

const versionChoiceArb: fc.Arbitrary<VersionChoice> = fc.oneof(
  fc.record({ fixed: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom<ExpectedVersion>('no_stream', 'stream_exists')) }),
  fc.record({ relative: fc.constantFrom<-1 | 0 | 1>(-1, 0, 0, 1) }),
);

const viaArb = fc.constantFrom<0 | 1>(0, 1);

const appendCommandArb: fc.Arbitrary<AppendCommand> = fc.record({
  kind: fc.constant('append' as const),
  via: viaArb,
  events: fc.array(fc.record({ stream: fc.constantFrom(...MODEL_STREAMS), text: fc.constantFrom('x', 'y') }), { minLength: 1, maxLength: 3 }),
  expected: fc.oneof(
    fc.constant(undefined),
    fc.record({ single: versionChoiceArb }),
    fc.record({ perStream: fc.array(versionChoiceArb, { minLength: 3, maxLength: 3 }) }),
  ),
  key: fc.option(fc.constantFrom(...MODEL_KEYS), { nil: undefined }),
});

const modelCommandArb: fc.Arbitrary<ModelCommand> = fc.oneof(
  { arbitrary: appendCommandArb, weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('replay' as const), via: viaArb, pick: fc.nat() }), weight: 1 },
);

function resolveVersion(choice: VersionChoice, current: number): ExpectedVersion {
  return 'fixed' in choice ? choice.fixed : Math.max(0, current + choice.relative);
}

function resolveCommand(command: AppendCommand, model: ReferenceModel): { events: NewEvent[]; options: AppendOptions } {
  const events = command.events.map((e) => note(e.stream, e.text));
  const options: AppendOptions = {};
  if (command.key !== undefined) options.idempotencyKey = command.key;
  const expected = command.expected;
  if (expected && 'single' in expected) {
    options.expectedVersion = resolveVersion(expected.single, model.version(command.events[0]!.stream));
  } else if (expected) {
    const streams = [...new Set(command.events.map((e) => e.stream))];
    options.expectedVersion = Object.fromEntries(streams.map((s, i) => [s, resolveVersion(expected.perStream[i]!, model.version(s))]));
  }
  return { events, options };
}

// ---- the suite ------------------------------------------------------------------------------------

export function describeStoreConformance(adapterName: string, factory: ConformanceFactory): void {
  /** One `it` with a fresh harness, cleaned up however the body ends. */
  const scenario = (name: string, body: (harness: ConformanceHarness) => Promise<void>): void => {
    it(name, async () => {
      const harness = await factory();
      try {
        await body(harness);
      } finally {
        await harness.cleanup();
      }
    });
  };

  /** Asserts the store holds exactly `before` (same head, same events). */
  const expectUnchanged = async (store: EventStore, before: readonly StoredEvent[]): Promise<void> => {
    expect(await readAll(store)).toEqual(before);
    const head = await store.head();
    expect(head.seq).toBe(before.length);
    expect(head.hash).toBe(before.at(-1)?.hash ?? GENESIS_HASH);
  };

  /** Runs `operation`, which must be refused with `code` and leave the store exactly as it was; returns the error. */
  const refusedUnchanged = async (store: EventStore, code: string, operation: () => Promise<unknown>): Promise<BatonError> => {
    const before = await readAll(store);
    const error = await refusal(operation());
    expect(error.code).toBe(code);
    await expectUnchanged(store, before);
    return error;
  };

  describe(`store conformance: ${adapterName}`, () => {
    describe('append: positions, ids, hash chain, time', () => {
      scenario('assigns seq contiguously from 1 across single appends and batches', async ({ store }) => {
        const first = await store.append([note('note/a', 'one')]);
        const second = await store.append([note('note/b', 'two'), note('note/a', 'three'), note('note/c', 'four')]);
        const third = await store.append([note('note/a', 'five')]);
        expect(seqsOf(first.events)).toEqual([1]);
        expect(seqsOf(second.events)).toEqual([2, 3, 4]);
        expect(seqsOf(third.events)).toEqual([5]);
        expect(seqsOf(await readAll(store))).toEqual([1, 2, 3, 4, 5]);
      });

      scenario('returns from append the stored events exactly as read() returns them', async ({ store }) => {
        const appended = [
          ...(await store.append([note('note/a', 'one')])).events,
          ...(await store.append([note('note/b', 'two'), note('note/a', 'three')], { idempotencyKey: 'k-1' })).events,
        ];
        expect(appended.map((e) => [e.v, e.type, e.stream, e.data])).toEqual([
          [1, NOTE, 'note/a', { text: 'one' }],
          [1, NOTE, 'note/b', { text: 'two' }],
          [1, NOTE, 'note/a', { text: 'three' }],
        ]);
        expect(appended[1]!.idempotency_key).toBe('k-1');
        expect(await readAll(store)).toEqual(appended);
      });

      scenario('assigns unique ids whose lexicographic order is seq order, across handles', async ({ store, openAnother }) => {
        const another = await openAnother();
        for (let i = 0; i < 5; i++) {
          await store.append([note('note/a', `a${i}`)]);
          await another.append([note('note/b', `b${i}`), note('note/b', `c${i}`)]);
        }
        const events = await readAll(store);
        const ids = events.map((e) => e.id);
        expect(new Set(ids).size).toBe(15);
        expect([...ids].sort()).toEqual(ids);
      });

      scenario('chains events: first prev is 64 zeros, each prev is the previous hash, hash is SHA-256 of the canonical event without hash', async ({ store }) => {
        await store.append([note('note/a', 'one')]);
        await store.append([note('note/b', 'two'), note('note/a', 'three')], { idempotencyKey: 'chain' });
        await store.append([note('note/a', 'four', { actor: 'sess_1', at: '2024-05-06T07:08:09.010Z' })]);
        const events = await readAll(store);
        expect(events[0]!.prev).toBe('0'.repeat(64));
        events.forEach((event, i) => {
          if (i > 0) expect(event.prev).toBe(events[i - 1]!.hash);
          expect(event.hash).toMatch(/^[0-9a-f]{64}$/);
          expect(event.hash).toBe(hashEvent(withoutHash(event)));
        });
        expect(new Set(events.map((e) => e.hash)).size).toBe(events.length);
      });

      scenario("stamps at from the store's clock when the event gives none, one reading per batch", async ({ store }) => {
        const before = Date.now();
        const { events } = await store.append([note('note/a', 'one'), note('note/b', 'two'), note('note/c', 'three')]);
        const after = Date.now();
        for (const event of events) {
          expect(event.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
          const at = Date.parse(event.at);
          expect(at).toBeGreaterThanOrEqual(before);
          expect(at).toBeLessThanOrEqual(after);
        }
        expect(new Set(events.map((e) => e.at)).size).toBe(1);
      });

      scenario('keeps the at and actor an event gives, and uses the clock only for the others', async ({ store }) => {
        const given = '2020-01-02T03:04:05.678Z';
        const before = Date.now();
        const { events } = await store.append([note('note/a', 'old', { at: given, actor: 'sess_agent' }), note('note/a', 'new')]);
        expect(events[0]!.at).toBe(given);
        expect(events[0]!.actor).toBe('sess_agent');
        expect(Date.parse(events[1]!.at)).toBeGreaterThanOrEqual(before);
        expect(events[1]!.actor.length).toBeGreaterThan(0);
        const stored = await readAll(store);
        expect(stored[0]!.at).toBe(given);
        expect(stored[0]!.actor).toBe('sess_agent');
      });
    });

    describe('append: all-or-nothing batches', () => {
      scenario('writes nothing from a batch that holds one schema-invalid event', async ({ store }) => {
        await store.append([note('note/a', 'existing')]);
        const error = await refusedUnchanged(store, 'INVALID_INPUT', () => store.append([note('note/a', 'fine'), note('note/b', ''), note('note/c', 'also fine')]));
        expect(error.message).toContain('events[1].data.text');
        expect(await store.streamVersion('note/a')).toBe(1);
        expect(await store.streamVersion('note/c')).toBe(0);
      });

      scenario('writes nothing from a batch whose expected version fails on one of its streams', async ({ store }) => {
        await store.append([note('note/a', 'existing')]);
        await refusedUnchanged(store, 'CONFLICT', () =>
          store.append([note('note/a', 'x'), note('note/b', 'y')], { expectedVersion: { 'note/a': 1, 'note/b': 'stream_exists' } }),
        );
        expect(await store.streamVersion('note/b')).toBe(0);
      });
    });

    describe('append: expected versions', () => {
      scenario('accepts an expectedVersion number equal to the stream version, 0 included', async ({ store }) => {
        await store.append([note('note/a', 'one')], { expectedVersion: 0 });
        await store.append([note('note/a', 'two'), note('note/a', 'three')], { expectedVersion: 1 });
        const { events } = await store.append([note('note/a', 'four')], { expectedVersion: 3 });
        expect(seqsOf(events)).toEqual([4]);
        expect(await store.streamVersion('note/a')).toBe(4);
      });

      scenario('refuses an expectedVersion number that differs from the stream version with CONFLICT, writing nothing', async ({ store }) => {
        await store.append([note('note/a', 'one'), note('note/a', 'two')]);
        const before = await readAll(store);
        for (const wrong of [0, 1, 3]) {
          const error = await refusal(store.append([note('note/a', 'late')], { expectedVersion: wrong }));
          expect(error.code).toBe('CONFLICT');
        }
        expect((await refusal(store.append([note('note/new', 'x')], { expectedVersion: 1 }))).code).toBe('CONFLICT');
        await expectUnchanged(store, before);
      });

      scenario("accepts 'no_stream' for a stream with no events", async ({ store }) => {
        await store.append([note('note/a', 'one')]);
        const { events } = await store.append([note('note/b', 'first'), note('note/b', 'second')], { expectedVersion: 'no_stream' });
        expect(seqsOf(events)).toEqual([2, 3]);
        expect(await store.streamVersion('note/b')).toBe(2);
      });

      scenario("refuses 'no_stream' for a stream that has events with CONFLICT, writing nothing", async ({ store }) => {
        await store.append([note('note/a', 'one')]);
        await refusedUnchanged(store, 'CONFLICT', () => store.append([note('note/a', 'again')], { expectedVersion: 'no_stream' }));
      });

      scenario("accepts 'stream_exists' for a stream that has events", async ({ store }) => {
        await store.append([note('note/a', 'one')]);
        const { events } = await store.append([note('note/a', 'two')], { expectedVersion: 'stream_exists' });
        expect(seqsOf(events)).toEqual([2]);
      });

      scenario("refuses 'stream_exists' for a stream with no events with CONFLICT, writing nothing", async ({ store }) => {
        await store.append([note('note/a', 'one')]);
        await refusedUnchanged(store, 'CONFLICT', () => store.append([note('note/b', 'first')], { expectedVersion: 'stream_exists' }));
        expect(await store.streamVersion('note/b')).toBe(0);
      });

      scenario('checks a single expectedVersion against every stream the batch touches', async ({ store }) => {
        await store.append([note('note/a', 'one'), note('note/b', 'one')]);
        const ok = await store.append([note('note/a', 'two'), note('note/b', 'two')], { expectedVersion: 1 });
        expect(seqsOf(ok.events)).toEqual([3, 4]);
        await store.append([note('note/a', 'three')]);
        // note/a is at 3, note/b at 2: one value cannot match both.
        await refusedUnchanged(store, 'CONFLICT', () => store.append([note('note/a', 'four'), note('note/b', 'three')], { expectedVersion: 3 }));
      });

      scenario('accepts a per-stream expectedVersion record when every stream matches', async ({ store }) => {
        await store.append([note('note/a', 'one'), note('note/a', 'two'), note('note/b', 'one')]);
        const { events } = await store.append([note('note/a', 'x'), note('note/b', 'y'), note('note/c', 'z')], {
          expectedVersion: { 'note/a': 2, 'note/b': 'stream_exists', 'note/c': 'no_stream' },
        });
        expect(seqsOf(events)).toEqual([4, 5, 6]);
        expect(await store.streamVersion('note/a')).toBe(3);
        expect(await store.streamVersion('note/b')).toBe(2);
        expect(await store.streamVersion('note/c')).toBe(1);
      });

      scenario('refuses a per-stream expectedVersion record when one stream differs with CONFLICT, writing nothing', async ({ store }) => {
        await store.append([note('note/a', 'one'), note('note/b', 'one')]);
        const before = await readAll(store);
        const records: Record<string, ExpectedVersion>[] = [
          { 'note/a': 1, 'note/b': 0 },
          { 'note/a': 'no_stream', 'note/b': 1 },
          { 'note/a': 1, 'note/b': 1, 'note/c': 'stream_exists' },
        ];
        for (const record of records) {
          const error = await refusal(store.append([note('note/a', 'x'), note('note/b', 'y'), note('note/c', 'z')], { expectedVersion: record }));
          expect(error.code).toBe('CONFLICT');
        }
        await expectUnchanged(store, before);
      });
    });

    describe('append: idempotency', () => {
      scenario('deduplicates a repeated key with the same content: returns the first events, writes nothing', async ({ store }) => {
        const batch = [note('note/a', 'one'), note('note/b', 'two')];
        const first = await store.append(batch, { idempotencyKey: 'cmd-1' });
        expect(first.deduplicated).toBe(false);
        await store.append([note('note/c', 'between')]);
        const before = await readAll(store);
        const again = await store.append(batch, { idempotencyKey: 'cmd-1' });
        expect(again.deduplicated).toBe(true);
        expect(again.events).toEqual(first.events);
        expect(again.events.map((e) => [e.seq, e.id, e.hash])).toEqual(first.events.map((e) => [e.seq, e.id, e.hash]));
        await expectUnchanged(store, before);
      });

      scenario('refuses a repeated key with different content with IDEMPOTENCY_CONFLICT, writing nothing', async ({ store }) => {
        await store.append([note('note/a', 'one'), note('note/b', 'two')], { idempotencyKey: 'cmd-1' });
        const before = await readAll(store);
        for (const different of [
          [note('note/a', 'one'), note('note/b', 'changed')],
          [note('note/a', 'one')],
          [note('note/a', 'one'), note('note/c', 'two')],
          [note('note/a', 'one'), note('note/b', 'two'), note('note/b', 'extra')],
        ]) {
          const error = await refusal(store.append(different, { idempotencyKey: 'cmd-1' }));
          expect(error.code).toBe('IDEMPOTENCY_CONFLICT');
        }
        await expectUnchanged(store, before);
      });

      scenario('deduplicates a replay even when its expectedVersion no longer holds', async ({ store }) => {
        const first = await store.append([note('note/a', 'one')], { idempotencyKey: 'retry', expectedVersion: 'no_stream' });
        const before = await readAll(store);
        const again = await store.append([note('note/a', 'one')], { idempotencyKey: 'retry', expectedVersion: 'no_stream' });
        expect(again.deduplicated).toBe(true);
        expect(again.events).toEqual(first.events);
        await expectUnchanged(store, before);
      });

      scenario('leaves a key free when the append that carried it failed', async ({ store }) => {
        await store.append([note('note/a', 'one')]);
        const error = await refusal(store.append([note('note/a', 'x')], { idempotencyKey: 'k', expectedVersion: 'no_stream' }));
        expect(error.code).toBe('CONFLICT');
        const later = await store.append([note('note/b', 'y')], { idempotencyKey: 'k' });
        expect(later.deduplicated).toBe(false);
        expect(seqsOf(later.events)).toEqual([2]);
      });

      scenario('keeps idempotency keys across handles and reopening', async ({ store, openAnother }) => {
        const batch = [note('note/a', 'one'), note('note/a', 'two')];
        const first = await store.append(batch, { idempotencyKey: 'durable-key' });
        await store.append([note('note/b', 'after')], { idempotencyKey: 'single-key' });
        const reopened = await openAnother();
        const before = await readAll(reopened);
        const again = await reopened.append(batch, { idempotencyKey: 'durable-key' });
        expect(again.deduplicated).toBe(true);
        expect(again.events).toEqual(first.events);
        expect((await refusal(reopened.append([note('note/a', 'other')], { idempotencyKey: 'durable-key' }))).code).toBe('IDEMPOTENCY_CONFLICT');
        expect((await reopened.append([note('note/b', 'after')], { idempotencyKey: 'single-key' })).deduplicated).toBe(true);
        expect((await refusal(reopened.append([note('note/b', 'other')], { idempotencyKey: 'single-key' }))).code).toBe('IDEMPOTENCY_CONFLICT');
        await expectUnchanged(reopened, before);
      });
    });

    describe('read, head, streamVersion', () => {
      const seed = async (store: EventStore): Promise<StoredEvent[]> => {
        const out: StoredEvent[] = [];
        out.push(...(await store.append([note('note/a', '1'), note('note/b', '2')])).events);
        out.push(...(await store.append([note('note/c', '3')])).events);
        out.push(...(await store.append([note('note/a', '4'), note('note/a', '5'), note('note/b', '6')])).events);
        out.push(...(await store.append([note('note/c', '7')])).events);
        return out;
      };

      scenario('reads every event in seq order when given no options', async ({ store }) => {
        const all = await seed(store);
        expect(await readAll(store)).toEqual(all);
        expect(await readAll(store, {})).toEqual(all);
      });

      scenario('reads from and to inclusive', async ({ store }) => {
        const all = await seed(store);
        expect(seqsOf(await readAll(store, { from: 3 }))).toEqual([3, 4, 5, 6, 7]);
        expect(seqsOf(await readAll(store, { to: 2 }))).toEqual([1, 2]);
        expect(await readAll(store, { from: 2, to: 5 })).toEqual(all.slice(1, 5));
        expect(seqsOf(await readAll(store, { from: 4, to: 4 }))).toEqual([4]);
        expect(seqsOf(await readAll(store, { from: 6, to: 100 }))).toEqual([6, 7]);
      });

      scenario('reads nothing from beyond the head, or when to is before from', async ({ store }) => {
        await seed(store);
        expect(await readAll(store, { from: 8 })).toEqual([]);
        expect(await readAll(store, { from: 1000, to: 2000 })).toEqual([]);
        expect(await readAll(store, { from: 5, to: 4 })).toEqual([]);
      });

      scenario('reads nothing from an empty store', async ({ store }) => {
        expect(await readAll(store)).toEqual([]);
        expect(await readAll(store, { from: 1, to: 10, streams: ['note/a'] })).toEqual([]);
      });

      scenario('filters reads by streams, in seq order', async ({ store }) => {
        const all = await seed(store);
        expect(seqsOf(await readAll(store, { streams: ['note/a'] }))).toEqual([1, 4, 5]);
        expect(await readAll(store, { streams: ['note/c', 'note/b'] })).toEqual(all.filter((e) => e.stream !== 'note/a'));
        expect(await readAll(store, { streams: ['note/none'] })).toEqual([]);
        expect(seqsOf(await readAll(store, { streams: ['note/a', 'note/b'], from: 2, to: 5 }))).toEqual([2, 4, 5]);
      });

      scenario('filters reads by types', async ({ store }) => {
        const all = await seed(store);
        expect(await readAll(store, { types: [NOTE] })).toEqual(all);
        expect(await readAll(store, { types: ['wu.claimed'] })).toEqual([]);
        expect(seqsOf(await readAll(store, { types: ['wu.claimed', NOTE], streams: ['note/b'], from: 3 }))).toEqual([6]);
        expect(await readAll(store, { types: ['wu.claimed'], streams: ['note/a'] })).toEqual([]);
      });

      scenario('readChunks, where the adapter has it, hands out exactly what read does, in non-empty chunks', async ({ store }) => {
        const readChunks = store.readChunks?.bind(store);
        if (readChunks === undefined) return;
        await seed(store);
        const cases: ReadOptions[] = [{}, { from: 3 }, { to: 2 }, { from: 2, to: 5 }, { from: 8 }, { streams: ['note/a'] }, { types: [NOTE], streams: ['note/b'], from: 3 }, { types: ['wu.claimed'] }];
        for (const options of cases) {
          const chunks: (readonly StoredEvent[])[] = [];
          for await (const chunk of readChunks(options)) chunks.push(chunk);
          expect(chunks.every((chunk) => chunk.length > 0)).toBe(true);
          expect(chunks.flat()).toEqual(await readAll(store, options));
        }
      });

      scenario('reports head as seq 0 and the genesis hash when empty, else the last event', async ({ store }) => {
        expect(await store.head()).toEqual({ seq: 0, hash: GENESIS_HASH });
        const all = await seed(store);
        expect(await store.head()).toEqual({ seq: 7, hash: all.at(-1)!.hash });
      });

      scenario('reports streamVersion as the number of events in the stream, 0 for an unknown stream', async ({ store }) => {
        expect(await store.streamVersion('note/a')).toBe(0);
        await seed(store);
        expect(await store.streamVersion('note/a')).toBe(3);
        expect(await store.streamVersion('note/b')).toBe(2);
        expect(await store.streamVersion('note/c')).toBe(2);
        expect(await store.streamVersion('note/unknown')).toBe(0);
      });

      scenario('shows appends made through one handle to reads, head and streamVersion on another', async ({ store, openAnother }) => {
        const another = await openAnother();
        // The other handle looks first, so a cached view it might keep is put to the test.
        expect(await another.head()).toEqual({ seq: 0, hash: GENESIS_HASH });
        expect(await another.streamVersion('note/a')).toBe(0);
        const all = await seed(store);
        expect(await another.head()).toEqual({ seq: 7, hash: all.at(-1)!.hash });
        expect(await another.streamVersion('note/a')).toBe(3);
        expect(await readAll(another)).toEqual(all);
        const more = await another.append([note('note/a', '8')], { expectedVersion: 3 });
        expect(seqsOf(more.events)).toEqual([8]);
        expect(more.events[0]!.prev).toBe(all.at(-1)!.hash);
        expect(await store.streamVersion('note/a')).toBe(4);
        expect((await store.head()).seq).toBe(8);
      });
    });

    describe('subscribe', () => {
      scenario('catches up from a position, then resolves caughtUp', async ({ store }) => {
        await store.append([note('note/a', '1'), note('note/b', '2'), note('note/c', '3')]);
        // A batch larger than any sensible page, so catch-up must page through it.
        await store.append(Array.from({ length: 1205 }, (_, i) => note('note/bulk', `bulk ${i}`)));
        const delivered: StoredEvent[] = [];
        const sub = store.subscribe(2, (event) => {
          delivered.push(event);
        });
        try {
          await sub.caughtUp;
          expect(seqsOf(delivered)).toEqual(range(2, 1208));
          expect(delivered).toEqual(await readAll(store, { from: 2 }));
        } finally {
          await sub.close();
        }
      });

      scenario('resolves caughtUp on an empty store and from a position beyond the head', async ({ store }) => {
        const seen: number[] = [];
        const empty = store.subscribe(1, (event) => {
          seen.push(event.seq);
        });
        await empty.caughtUp;
        await empty.close();
        await store.append([note('note/a', '1')]);
        const beyond = store.subscribe(5, (event) => {
          seen.push(event.seq);
        });
        await beyond.caughtUp;
        await beyond.close();
        expect(seen).toEqual([]);
      });

      scenario('delivers live events appended through another handle, in order, each exactly once', async ({ store, openAnother }) => {
        const another = await openAnother();
        await store.append([note('note/a', 'before 1'), note('note/a', 'before 2')]);
        const delivered: StoredEvent[] = [];
        const sub = store.subscribe(1, (event) => {
          delivered.push(event);
        });
        try {
          await sub.caughtUp;
          expect(seqsOf(delivered)).toEqual([1, 2]);
          await another.append([note('note/b', 'live 1')]);
          await another.append([note('note/b', 'live 2'), note('note/c', 'live 3')]);
          await Promise.all([another.append([note('note/a', 'live 4')]), store.append([note('note/a', 'live 5')])]);
          for (let i = 6; i <= 10; i++) await another.append([note('note/b', `live ${i}`)]);
          await waitFor(() => delivered.length >= 12, '12 delivered events');
          await sleep(50);
          expect(seqsOf(delivered)).toEqual(range(1, 12));
          expect(delivered).toEqual(await readAll(store));
        } finally {
          await sub.close();
        }
      });

      scenario('awaits the handler: the next event is not delivered while a handler is still running', async ({ store, openAnother }) => {
        const another = await openAnother();
        await store.append([note('note/a', '1'), note('note/a', '2')]);
        let running = 0;
        let overlapped = false;
        const seen: number[] = [];
        const sub = store.subscribe(1, async (event) => {
          running += 1;
          if (running > 1) overlapped = true;
          await sleep(3);
          seen.push(event.seq);
          running -= 1;
        });
        try {
          await another.append([note('note/a', '3'), note('note/a', '4')]);
          await another.append([note('note/a', '5')]);
          await waitFor(() => seen.length >= 5, '5 handled events');
          expect(seen).toEqual([1, 2, 3, 4, 5]);
          expect(overlapped).toBe(false);
        } finally {
          await sub.close();
        }
      });

      scenario('stops delivering once the subscription is closed', async ({ store, openAnother }) => {
        const another = await openAnother();
        const closedSeen: number[] = [];
        const sub = store.subscribe(1, (event) => {
          closedSeen.push(event.seq);
        });
        await sub.caughtUp;
        await another.append([note('note/a', '1')]);
        await waitFor(() => closedSeen.length === 1, 'the first live event');
        await sub.close();
        // A witness subscription proves the later events were delivered to whoever still listens.
        const witnessSeen: number[] = [];
        const witness = store.subscribe(2, (event) => {
          witnessSeen.push(event.seq);
        });
        try {
          await another.append([note('note/a', '2')]);
          await store.append([note('note/a', '3')]);
          await waitFor(() => witnessSeen.length === 2, 'the witness to see 2 events');
          await sleep(100);
          expect(witnessSeen).toEqual([2, 3]);
          expect(closedSeen).toEqual([1]);
        } finally {
          await witness.close();
        }
      });
    });

    describe('verify and storageInfo', () => {
      scenario('verifies an empty log as ok', async ({ store }) => {
        expect(await store.verify()).toEqual({ ok: true, head_seq: 0, checked: 0, first_bad: null });
      });

      scenario('verifies a sound log as ok with head_seq and checked', async ({ store }) => {
        await store.append([note('note/a', '1')]);
        await store.append([note('note/b', '2'), note('note/c', '3')], { idempotencyKey: 'v' });
        await store.append([note('note/a', '4', { at: '2021-01-01T00:00:00.000Z', actor: 'sess_x' })]);
        expect(await store.verify()).toEqual({ ok: true, head_seq: 4, checked: 4, first_bad: null });
      });

      scenario('reports storage as whole numbers that grow with the log', async ({ store }) => {
        const empty = await store.storageInfo();
        for (const value of [empty.segments, empty.bytes]) {
          expect(Number.isInteger(value)).toBe(true);
          expect(value).toBeGreaterThanOrEqual(0);
        }
        await store.append([note('note/a', 'x'.repeat(500))]);
        const one = await store.storageInfo();
        expect(Number.isInteger(one.segments)).toBe(true);
        expect(one.segments).toBeGreaterThanOrEqual(0);
        expect(one.bytes).toBeGreaterThan(empty.bytes);
        expect(one.bytes).toBeGreaterThanOrEqual(500);
        await store.append([note('note/a', 'y'.repeat(500))]);
        expect((await store.storageInfo()).bytes).toBeGreaterThan(one.bytes);
      });
    });

    describe('importLog', () => {
      const seedExport = async (store: EventStore): Promise<StoredEvent[]> => {
        await store.append([note('note/a', '1')], { expectedVersion: 'no_stream' });
        await store.append([note('note/b', '2'), note('note/a', '3')], { idempotencyKey: 'imported-key' });
        await store.append([note('note/c', '4', { at: '2022-02-02T02:02:02.002Z', actor: 'sess_imp' })]);
        await store.append([note('note/a', '5')]);
        return readAll(store);
      };
      async function* iterate(events: readonly StoredEvent[]): AsyncIterable<StoredEvent> {
        for (const event of events) yield structuredClone(event);
      }
      /** A scenario with a second, fresh harness beside the first: the store an export is imported into. */
      const withImportTarget = (name: string, body: (source: ConformanceHarness, target: ConformanceHarness) => Promise<void>): void => {
        scenario(name, async (source) => {
          const target = await factory();
          try {
            await body(source, target);
          } finally {
            await target.cleanup();
          }
        });
      };

      withImportTarget('imports an export into a fresh store with identical events, head, stream versions and keys', async ({ store }, target) => {
        const exported = await seedExport(store);
        const sourceHead = await store.head();
        const head = await target.store.importLog(iterate(exported));
        expect(head).toEqual(sourceHead);
        expect(await target.store.head()).toEqual(sourceHead);
        expect(await readAll(target.store)).toEqual(exported);
        expect(await target.store.streamVersion('note/a')).toBe(3);
        expect(await target.store.streamVersion('note/b')).toBe(1);
        expect(await target.store.verify()).toEqual({ ok: true, head_seq: 5, checked: 5, first_bad: null });
        const replay = await target.store.append([note('note/b', '2'), note('note/a', '3')], { idempotencyKey: 'imported-key' });
        expect(replay.deduplicated).toBe(true);
        expect(replay.events).toEqual(exported.slice(1, 3));
        const next = await target.store.append([note('note/a', '6')], { expectedVersion: 3 });
        expect(next.events[0]!.seq).toBe(6);
        expect(next.events[0]!.prev).toBe(sourceHead.hash);
      });

      withImportTarget('refuses to import into a non-empty store with CONFLICT, leaving it unchanged', async ({ store }, target) => {
        const exported = await seedExport(store);
        await target.store.append([note('note/z', 'already here')]);
        const before = await readAll(target.store);
        const error = await refusal(target.store.importLog(iterate(exported)));
        expect(error.code).toBe('CONFLICT');
        await expectUnchanged(target.store, before);
      });

      withImportTarget('refuses a tampered export (one data field changed) with INVALID_INPUT and commits nothing', async ({ store }, target) => {
        const exported = await seedExport(store);
        const tampered = exported.map((e) => structuredClone(e));
        tampered[2]!.data = { text: 'rewritten history' };
        const error = await refusal(target.store.importLog(iterate(tampered)));
        expect(error.code).toBe('INVALID_INPUT');
        await expectUnchanged(target.store, []);
        expect(await target.store.streamVersion('note/a')).toBe(0);
        // Nothing half-committed stands in the way of importing the sound export afterwards.
        expect((await target.store.importLog(iterate(exported))).seq).toBe(5);
        expect(await readAll(target.store)).toEqual(exported);
      });

      withImportTarget('refuses an export with a missing event with INVALID_INPUT and commits nothing', async ({ store }, target) => {
        const exported = await seedExport(store);
        const error = await refusal(target.store.importLog(iterate([...exported.slice(0, 2), ...exported.slice(3)])));
        expect(error.code).toBe('INVALID_INPUT');
        await expectUnchanged(target.store, []);
      });
    });

    describe('invalid input', () => {
      scenario('rejects the returned promise on invalid input rather than throwing synchronously', async ({ store }) => {
        let pending: Promise<AppendResult> | undefined;
        let threw: unknown;
        try {
          pending = store.append([]);
        } catch (error) {
          threw = error;
        }
        expect(threw).toBeUndefined();
        expect(pending).toBeInstanceOf(Promise);
        expect((await refusal(pending!)).code).toBe('INVALID_INPUT');
      });

      const cases: { name: string; field: string; events: NewEvent[]; options?: AppendOptions }[] = [
        { name: 'an unknown event type', field: 'type', events: [{ type: 'note.unheard_of', stream: 'note/a', data: { text: 'x' } }] },
        { name: 'a malformed event type', field: 'type', events: [{ type: 'Note Recorded', stream: 'note/a', data: { text: 'x' } }] },
        { name: 'a malformed stream name', field: 'stream', events: [{ type: NOTE, stream: 'note/../etc', data: { text: 'x' } }] },
        { name: 'a stream name without an id', field: 'stream', events: [{ type: NOTE, stream: 'note', data: { text: 'x' } }] },
        { name: 'a stream outside the categories of its type', field: 'stream', events: [{ type: NOTE, stream: 'wu/WU-1', data: { text: 'x' } }] },
        { name: 'data that fails its schema (empty text)', field: 'data.text', events: [note('note/a', '')] },
        { name: 'data that fails its schema (text too long)', field: 'data.text', events: [note('note/a', 'x'.repeat(4001))] },
        { name: 'data with an unknown field', field: 'data', events: [{ type: NOTE, stream: 'note/a', data: { text: 'x', extra: 1 } }] },
        { name: 'a non-UTC at', field: 'at', events: [note('note/a', 'x', { at: '2024-01-01T00:00:00+02:00' })] },
        { name: 'an empty batch', field: 'events', events: [] },
        { name: 'an empty idempotency key', field: 'idempotency_key', events: [note('note/a', 'x')], options: { idempotencyKey: '' } },
        { name: 'an idempotency key with a space', field: 'idempotency_key', events: [note('note/a', 'x')], options: { idempotencyKey: 'two words' } },
        { name: 'a negative expected version', field: 'expected_version', events: [note('note/a', 'x')], options: { expectedVersion: -1 } },
        { name: 'a fractional expected version', field: 'expected_version', events: [note('note/a', 'x')], options: { expectedVersion: 1.5 } },
        {
          name: 'an expected version that is no known word',
          field: 'expected_version',
          events: [note('note/a', 'x')],
          options: { expectedVersion: 'any' as unknown as ExpectedVersion },
        },
        {
          name: 'a bad value in a per-stream expected version record',
          field: 'expected_version.note/a',
          events: [note('note/a', 'x')],
          options: { expectedVersion: { 'note/a': -2 } },
        },
      ];
      for (const c of cases) {
        scenario(`rejects ${c.name} with INVALID_INPUT naming ${c.field}, writing nothing`, async ({ store }) => {
          await store.append([note('note/a', 'existing')], { idempotencyKey: 'seed' });
          const before = await readAll(store);
          const error = await refusal(store.append(c.events, c.options));
          expect(error.code).toBe('INVALID_INPUT');
          expect(error.message).toContain(c.field);
          await expectUnchanged(store, before);
          expect(await store.streamVersion('note/a')).toBe(1);
        });
      }
    });

    describe('properties', () => {
      it('behaves like the reference model for random sequences of appends', async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(modelCommandArb, { minLength: 1, maxLength: 14 }), async (commands) => {
            const harness = await factory();
            try {
              const handles = [harness.store, await harness.openAnother()] as const;
              const model = new ReferenceModel();
              const sent: { events: NewEvent[]; options: AppendOptions }[] = [];
              for (const command of commands) {
                let call: { events: NewEvent[]; options: AppendOptions };
                if (command.kind === 'replay') {
                  const earlier = sent[command.pick % Math.max(1, sent.length)];
                  if (!earlier) continue;
                  call = earlier;
                } else {
                  call = resolveCommand(command, model);
                }
                sent.push(call);
                const predicted = model.predict(call.events, call.options);
                let result: AppendResult | undefined;
                let code: string | undefined;
                try {
                  result = await handles[command.via].append(call.events, call.options);
                } catch (error) {
                  if (!isBatonError(error)) throw error;
                  code = error.code;
                }
                switch (predicted.kind) {
                  case 'CONFLICT':
                  case 'IDEMPOTENCY_CONFLICT':
                    expect(code).toBe(predicted.kind);
                    break;
                  case 'deduplicated':
                    expect(code).toBeUndefined();
                    expect(result!.deduplicated).toBe(true);
                    expect(result!.events).toEqual(predicted.events);
                    break;
                  case 'written': {
                    expect(code).toBeUndefined();
                    expect(result!.deduplicated).toBe(false);
                    const stored = result!.events;
                    expect(seqsOf(stored)).toEqual(predicted.seqs);
                    expect(stored.map((e) => [e.type, e.stream, e.data])).toEqual(call.events.map((e) => [e.type, e.stream, e.data]));
                    let prev = model.headHash;
                    for (const e of stored) {
                      expect(e.prev).toBe(prev);
                      expect(e.hash).toBe(hashEvent(withoutHash(e)));
                      expect(e.idempotency_key).toBe(call.options.idempotencyKey);
                      prev = e.hash;
                    }
                    model.commit(stored, call.events, call.options.idempotencyKey);
                    break;
                  }
                }
                // Both handles must see the same log, whichever of them wrote.
                for (const handle of handles) {
                  expect((await handle.head()).seq).toBe(model.headSeq);
                  for (const stream of MODEL_STREAMS) expect(await handle.streamVersion(stream)).toBe(model.version(stream));
                }
              }
              for (const handle of handles) {
                expect(await readAll(handle)).toEqual(model.log);
                expect(await handle.head()).toEqual({ seq: model.headSeq, hash: model.headHash });
              }
              const ids = model.log.map((e) => e.id);
              expect(new Set(ids).size).toBe(ids.length);
              expect([...ids].sort()).toEqual(ids);
            } finally {
              await harness.cleanup();
            }
          }),
          { numRuns: 40 },
        );
      });

      it('keeps the log contiguous and complete when several handles append at once', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 0, maxLength: 5 }), { minLength: 2, maxLength: 6 }),
            async (plans) => {
              const harness = await factory();
              try {
                const handles = await Promise.all(plans.map(() => harness.openAnother()));
                const results = await Promise.all(
                  plans.flatMap((sizes, h) =>
                    sizes.map((size, b) =>
                      handles[h]!.append(Array.from({ length: size }, (_, k) => note(`note/w${h}`, `w${h} b${b} e${k}`))),
                    ),
                  ),
                );
                const total = plans.flat().reduce((sum, n) => sum + n, 0);
                const log = await readAll(harness.store);
                expect(seqsOf(log)).toEqual(range(1, total));
                expect(new Set(log.map((e) => e.id)).size).toBe(total);
                const ids = log.map((e) => e.id);
                expect([...ids].sort()).toEqual(ids);
                for (const result of results) {
                  expect(result.deduplicated).toBe(false);
                  // A batch is contiguous in the log, and stored exactly as append reported it.
                  const first = result.events[0]!.seq;
                  expect(seqsOf(result.events)).toEqual(range(first, first + result.events.length - 1));
                  for (const event of result.events) expect(log[event.seq - 1]).toEqual(event);
                }
                plans.forEach((sizes, h) => {
                  const texts = log.filter((e) => e.stream === `note/w${h}`).map((e) => e.data['text']);
                  expect(texts.length).toBe(sizes.reduce((sum, n) => sum + n, 0));
                });
                for (let h = 0; h < plans.length; h++) {
                  expect(await harness.store.streamVersion(`note/w${h}`)).toBe(plans[h]!.reduce((sum, n) => sum + n, 0));
                }
                expect(await harness.store.verify()).toEqual({ ok: true, head_seq: total, checked: total, first_bad: null });
              } finally {
                await harness.cleanup();
              }
            },
          ),
          { numRuns: 30 },
        );
      });
    });
  });
}
