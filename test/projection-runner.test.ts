import type { BatonEvent } from '../events/baton-event.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCatalog, defineEvent, GENESIS_HASH, type NewEvent, type StoredEvent } from '../events/index.js';
import { logStatsProjection } from '../projections/log-stats.js';
import { foldEvents, type Projection } from '../projections/projection.js';
import type { EventStore, ReadOptions } from '../src/store/contract.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { MemoryEventStore } from '../src/store/memory-store.js';
import { runProjection, runProjections, SnapshotOutcome, type ProjectionRun } from '../src/store/projection-runner.js';
import { loadSnapshot, snapshotPath, SnapshotLoadKind, writeSnapshot } from '../src/store/snapshots.js';

// ---- fixtures -------------------------------------------------------------------------------

const NOW = '2026-05-09T12:00:00.000Z';

/** A second type, so logs mix types; and one with a legacy shape its upcaster lifts. */
const probeSeen = defineEvent({ type: 'probe.seen', schema: z.strictObject({ n: z.number().int() }), streams: ['probe'], description: 'test' });
const legacyNoted = defineEvent({
  type: 'legacy.noted',
  schema: z.union([z.strictObject({ text: z.string() }), z.strictObject({ txt: z.string() })]),
  streams: ['legacy'],
  description: 'test: `txt` is the legacy spelling of `text`',
  upcasters: [(data) => ('txt' in data ? { text: data['txt'] } : data)],
});
const catalog = createCatalog([probeSeen, legacyNoted]);

/** A projection with plain-JSON state (no serialize hooks), to exercise the default round trip. */
interface NoteTextsState {
  count: number;
  order: string[];
  last: Record<string, string>;
}
const noteTexts: Projection<NoteTextsState, { v: 1; type: 'note_texts'; generated_at: string; count: number; last: [string, string][] }> = {
  name: 'note_texts',
  version: 1,
  init: () => ({ count: 0, order: [], last: {} }),
  apply(state, event) {
    state.count += 1;
    const data: Record<string, unknown> = event.data;
    const text = data['text'];
    if (typeof text === 'string') {
      if (!Object.hasOwn(state.last, event.stream)) state.order.push(event.stream);
      state.last[event.stream] = text;
    }
    return state;
  },
  view: (state, now) => ({
    v: 1,
    type: 'note_texts',
    generated_at: now,
    count: state.count,
    last: state.order.map((s): [string, string] => [s, state.last[s]!]),
  }),
};

const arbEvent: fc.Arbitrary<NewEvent> = fc.oneof(
  fc.record({ id: fc.integer({ min: 0, max: 6 }), text: fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme' }) }).map(({ id, text }) => ({
    type: 'note.recorded',
    stream: `note/n${id}`,
    data: { text },
  })),
  fc.record({ id: fc.integer({ min: 0, max: 3 }), n: fc.integer() }).map(({ id, n }) => ({ type: 'probe.seen', stream: `probe/p${id}`, data: { n } })),
);

interface Harness {
  store: EventStore;
  cacheDir: string;
}

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-runner-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const STORES = {
  memory: (): Harness => ({ store: new MemoryEventStore({ catalog }), cacheDir: join(tempDir(), 'cache') }),
  jsonl: (): Harness => {
    const store = new JsonlEventStore(tempDir(), { catalog });
    return { store, cacheDir: store.layout.cache };
  },
} as const;

/** Property runs per adapter: JSONL appends fsync, so it gets fewer. */
const RUNS = { memory: 100, jsonl: 30 } as const;

async function appendAll(store: EventStore, events: readonly NewEvent[], chunk = 3): Promise<void> {
  for (let i = 0; i < events.length; i += chunk) await store.append(events.slice(i, i + chunk));
}

async function readAll(store: EventStore, options: ReadOptions = {}): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of store.read(options)) out.push(e);
  return out;
}

/** What the two projections give when folded straight over the events (no runner, no snapshot). */
async function referenceViews(store: EventStore, to?: number): Promise<string> {
  const events = (await readAll(store, to === undefined ? {} : { to })).map((e) => catalog.upcast(e));
  const stats = logStatsProjection.view(foldEvents(logStatsProjection, events), NOW);
  const texts = noteTexts.view(foldEvents(noteTexts, events), NOW);
  return JSON.stringify([stats, texts]);
}

function viewsOf(runs: readonly ProjectionRun<unknown, unknown>[]): string {
  return JSON.stringify(runs.map((r) => r.view));
}

/** A store that delegates to another and counts reads, or tampers with what they return. */
function wrapStore(
  inner: EventStore,
  onRead: (options: ReadOptions) => void,
  mapRead?: (events: AsyncIterable<StoredEvent>) => AsyncIterable<StoredEvent>,
): EventStore {
  return new Proxy(inner, {
    get(target, key, receiver) {
      if (key === 'read') {
        return (options: ReadOptions = {}) => {
          onRead(options);
          const events = target.read(options);
          return mapRead ? mapRead(events) : events;
        };
      }
      const value: unknown = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

// ---- properties -----------------------------------------------------------------------------

describe.each(Object.keys(STORES) as (keyof typeof STORES)[])('projection runner on the %s store', (kind) => {
  const make = STORES[kind];
  /** A fresh store and cache folder for one property run, closed however the run ends. */
  const withFresh = async (body: (fresh: ReturnType<typeof make>) => Promise<void>): Promise<void> => {
    const fresh = make();
    try {
      await body(fresh);
    } finally {
      await fresh.store.close();
    }
  };

  it('folding incrementally through snapshots at random cut points equals folding from scratch, byte for byte', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbEvent, { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.integer({ min: 1, max: 4 }),
        async (events, rawCuts, chunk) =>
          withFresh(async ({ store, cacheDir }) => {
            const cuts = [...new Set(rawCuts.map((c) => c % (events.length + 1)))].sort((a, b) => a - b);
            let appended = 0;
            let snapshotSeq = 0;
            for (const cut of [...cuts, events.length]) {
              await appendAll(store, events.slice(appended, cut), chunk);
              appended = cut;
              const incremental = await runProjections(store, [logStatsProjection, noteTexts], { catalog, cacheDir, now: NOW, snapshotEvery: 1 });
              const scratch = await runProjections(store, [logStatsProjection, noteTexts], { catalog, now: NOW });
              for (const run of incremental) {
                expect(run.from_snapshot).toBe(snapshotSeq > 0);
                expect(run.folded).toBe(cut - snapshotSeq);
                expect(run.seq).toBe(cut);
              }
              expect(scratch.every((r) => !r.from_snapshot && r.folded === cut && r.snapshot.kind === SnapshotOutcome.DISABLED)).toBe(true);
              expect(viewsOf(incremental)).toBe(viewsOf(scratch));
              expect(viewsOf(incremental)).toBe(await referenceViews(store));
              // The states agree too, in the form a snapshot stores them.
              expect(JSON.stringify(logStatsProjection.serialize!(incremental[0].state))).toBe(JSON.stringify(logStatsProjection.serialize!(scratch[0].state)));
              expect(JSON.stringify(incremental[1].state)).toBe(JSON.stringify(scratch[1].state));
              if (cut > 0) snapshotSeq = cut;
            }
          }),
      ),
      { numRuns: RUNS[kind] },
    );
  });

  it('replay is deterministic: the same log gives the same view every time, with or without snapshots', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbEvent, { minLength: 1, maxLength: 25 }), async (events) =>
        withFresh(async ({ store, cacheDir }) => {
          await appendAll(store, events);
          const first = await runProjections(store, [logStatsProjection, noteTexts], { catalog, now: NOW });
          const second = await runProjections(store, [logStatsProjection, noteTexts], { catalog, now: NOW });
          const cold = await runProjections(store, [logStatsProjection, noteTexts], { catalog, cacheDir, now: NOW, snapshotEvery: 1 });
          const warm = await runProjections(store, [logStatsProjection, noteTexts], { catalog, cacheDir, now: NOW, snapshotEvery: 1 });
          expect(warm.every((r) => r.from_snapshot && r.folded === 0)).toBe(true);
          expect(viewsOf(second)).toBe(viewsOf(first));
          expect(viewsOf(cold)).toBe(viewsOf(first));
          expect(viewsOf(warm)).toBe(viewsOf(first));
        }),
      ),
      { numRuns: RUNS[kind] },
    );
  });

  it('`to` gives the view as of that position, using a snapshot at or before it and ignoring one past it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbEvent, { minLength: 1, maxLength: 25 }), fc.nat(), fc.nat(), async (events, rawTo, rawSnap) =>
        withFresh(async ({ store, cacheDir }) => {
          const to = rawTo % (events.length + 1);
          const snapAt = 1 + (rawSnap % events.length);
          await appendAll(store, events.slice(0, snapAt));
          const written = await runProjection(store, logStatsProjection, { catalog, cacheDir, now: NOW, snapshotEvery: 1 });
          expect(written.snapshot_written).toBe(true);
          await appendAll(store, events.slice(snapAt));
          const before = readFileSync(snapshotPath(cacheDir, 'log_stats'), 'utf8');

          const run = await runProjection(store, logStatsProjection, { catalog, cacheDir, now: NOW, to, snapshotEvery: 1 });
          const expected = await referenceViews(store, to);
          expect(JSON.stringify(run.view)).toBe(JSON.stringify(JSON.parse(expected)[0]));
          expect(run.seq).toBe(to);
          expect(run.hash).toBe(to === 0 ? GENESIS_HASH : (await readAll(store, { from: to, to }))[0]!.hash);
          if (snapAt <= to) {
            expect(run.from_snapshot).toBe(true);
            expect(run.folded).toBe(to - snapAt);
          } else {
            expect(run.from_snapshot).toBe(false);
            expect(run.snapshot.kind).toBe(SnapshotOutcome.AHEAD);
            expect(run.folded).toBe(to);
          }
          // A past position never replaces the snapshot; reaching the head does.
          const atHead = to === events.length;
          expect(run.snapshot_written).toBe(atHead && run.folded > 0);
          if (!atHead) expect(readFileSync(snapshotPath(cacheDir, 'log_stats'), 'utf8')).toBe(before);
        }),
      ),
      { numRuns: RUNS[kind] },
    );
  });

  it('ignores and rebuilds a snapshot of another projection version', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbEvent, { minLength: 1, maxLength: 20 }), async (events) =>
        withFresh(async ({ store, cacheDir }) => {
          await appendAll(store, events);
          await runProjection(store, logStatsProjection, { catalog, cacheDir, now: NOW, snapshotEvery: 1 });
          const bumped = { ...logStatsProjection, version: logStatsProjection.version + 1 };
          const run = await runProjection(store, bumped, { catalog, cacheDir, now: NOW });
          expect(run.from_snapshot).toBe(false);
          expect(run.snapshot.kind).toBe(SnapshotOutcome.STALE);
          expect(run.folded).toBe(events.length);
          expect(JSON.stringify(run.view)).toBe(JSON.stringify(JSON.parse(await referenceViews(store))[0]));
          // Rebuilt: the stale file was replaced, so the next run of the new version uses it.
          expect(run.snapshot_written).toBe(true);
          expect((await runProjection(store, bumped, { catalog, cacheDir, now: NOW })).from_snapshot).toBe(true);
          // …and the old version now sees a stale snapshot in turn.
          expect((await runProjection(store, logStatsProjection, { catalog, cacheDir, now: NOW })).snapshot.kind).toBe(SnapshotOutcome.STALE);
        }),
      ),
      { numRuns: RUNS[kind] },
    );
  });

  it('ignores and rebuilds a snapshot whose event is not in the log (another store in the same cache folder)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbEvent, { minLength: 1, maxLength: 20 }), fc.array(arbEvent, { minLength: 1, maxLength: 20 }), async (eventsA, eventsB) => {
        const a = make();
        const b = make();
        try {
          await appendAll(a.store, eventsA);
          await appendAll(b.store, eventsB);
          const fromA = await runProjections(a.store, [logStatsProjection, noteTexts], { catalog, cacheDir: a.cacheDir, now: NOW, snapshotEvery: 1 });
          expect(fromA.every((r) => r.snapshot_written)).toBe(true);
          // B reads A's snapshots: same names and versions, but B's log holds other events.
          const run = await runProjections(b.store, [logStatsProjection, noteTexts], { catalog, cacheDir: a.cacheDir, now: NOW, snapshotEvery: 1000 });
          for (const r of run) {
            expect(r.from_snapshot).toBe(false);
            expect(r.snapshot.kind).toBe(SnapshotOutcome.STALE);
            expect(r.folded).toBe(eventsB.length);
            expect(r.snapshot_written).toBe(true);
          }
          expect(viewsOf(run)).toBe(await referenceViews(b.store));
          const again = await runProjections(b.store, [logStatsProjection, noteTexts], { catalog, cacheDir: a.cacheDir, now: NOW });
          expect(again.every((r) => r.from_snapshot && r.folded === 0)).toBe(true);
          expect(viewsOf(again)).toBe(viewsOf(run));
        } finally {
          await a.store.close();
          await b.store.close();
        }
      }),
      { numRuns: RUNS[kind] },
    );
  });
});

// ---- examples -------------------------------------------------------------------------------

describe('projection runner', () => {
  const notes = (n: number, prefix = 't'): NewEvent[] =>
    Array.from({ length: n }, (_, i) => ({ type: 'note.recorded', stream: `note/n${i % 3}`, data: { text: `${prefix}${i}` } }));

  it('ignores a snapshot for a position past the end of the log', async () => {
    const { store, cacheDir } = STORES.jsonl();
    await appendAll(store, notes(5));
    await runProjection(store, logStatsProjection, { catalog, cacheDir, now: NOW, snapshotEvery: 1 });
    const other = STORES.jsonl();
    await appendAll(other.store, notes(2));
    const run = await runProjection(other.store, logStatsProjection, { catalog, cacheDir, now: NOW });
    expect(run.snapshot).toEqual({ kind: SnapshotOutcome.STALE, reason: expect.stringContaining('log ends at seq 2') });
    expect(run.view.events).toBe(2);
  });

  it.each([
    ['garbage bytes', 'not json {'],
    ['an empty file (a crash before the data reached the disk)', ''],
    ['a JSON array', '[1,2,3]'],
    ['a bad hash', JSON.stringify({ name: 'log_stats', version: 1, seq: 2, hash: 'abc', state: {} })],
    ['a missing state', JSON.stringify({ name: 'log_stats', version: 1, seq: 2, hash: GENESIS_HASH })],
    ['another projection name', JSON.stringify({ name: 'note_texts', version: 1, seq: 2, hash: GENESIS_HASH, state: {} })],
  ])('ignores a corrupt snapshot file (%s) and rebuilds it', async (_label, content) => {
    const { store, cacheDir } = STORES.memory();
    await appendAll(store, notes(4));
    const fresh = await runProjection(store, logStatsProjection, { catalog, now: NOW });
    await runProjection(store, logStatsProjection, { catalog, cacheDir, now: NOW, snapshotEvery: 1 });
    writeFileSync(snapshotPath(cacheDir, 'log_stats'), content);
    const run = await runProjection(store, logStatsProjection, { catalog, cacheDir, now: NOW });
    expect(run.from_snapshot).toBe(false);
    expect(run.snapshot.kind).toBe(SnapshotOutcome.CORRUPT);
    expect(JSON.stringify(run.view)).toBe(JSON.stringify(fresh.view));
    expect(run.snapshot_written).toBe(true);
    expect(loadSnapshot(cacheDir, 'log_stats', 1).kind).toBe(SnapshotLoadKind.OK);
  });

  it('ignores a well-formed snapshot whose state the projection rejects', async () => {
    const { store, cacheDir } = STORES.memory();
    await appendAll(store, notes(3));
    const [last] = await readAll(store, { from: 3, to: 3 });
    writeSnapshot(cacheDir, { name: 'log_stats', version: 1, seq: 3, hash: last!.hash, state: { events: 'three' } });
    const run = await runProjection(store, logStatsProjection, { catalog, cacheDir, now: NOW });
    expect(run.snapshot).toEqual({ kind: SnapshotOutcome.CORRUPT, reason: expect.stringContaining('rejected') });
    expect(run.view.events).toBe(3);
  });

  it('trusts a valid snapshot: its state is the starting point (proved with a doctored count)', async () => {
    const { store, cacheDir } = STORES.memory();
    await appendAll(store, notes(3));
    const [third] = await readAll(store, { from: 3, to: 3 });
    const state = { events: 1000, head_seq: 3, head_hash: third!.hash, streams: ['note/x'], by_type: [['note.recorded', 1000]] };
    writeSnapshot(cacheDir, { name: 'log_stats', version: 1, seq: 3, hash: third!.hash, state });
    await appendAll(store, notes(2));
    const run = await runProjection(store, logStatsProjection, { catalog, cacheDir, now: NOW });
    expect(run.from_snapshot).toBe(true);
    expect(run.folded).toBe(2);
    expect(run.view.events).toBe(1002);
  });

  it('writes snapshot files 0600 in a cache folder it creates 0700, leaving no temp files', async () => {
    const { store } = STORES.memory();
    const cacheDir = join(tempDir(), 'nested', 'cache');
    await appendAll(store, notes(3));
    const run = await runProjections(store, [logStatsProjection, noteTexts], { catalog, cacheDir, now: NOW, snapshotEvery: 1 });
    expect(run.every((r) => r.snapshot_written)).toBe(true);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    expect(readdirSync(cacheDir).sort()).toEqual(['log_stats.snapshot.json', 'note_texts.snapshot.json']);
    for (const name of ['log_stats', 'note_texts']) {
      expect(statSync(snapshotPath(cacheDir, name)).mode & 0o777).toBe(0o600);
      const body = JSON.parse(readFileSync(snapshotPath(cacheDir, name), 'utf8')) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['name', 'version', 'seq', 'hash', 'state']);
      expect(body).toMatchObject({ name, version: 1, seq: 3, hash: (await store.head()).hash });
    }
  });

  it('writes a snapshot only after folding snapshotEvery events (default 1000)', async () => {
    const { store, cacheDir } = STORES.memory();
    await appendAll(store, notes(4));
    expect((await runProjection(store, logStatsProjection, { catalog, cacheDir, now: NOW })).snapshot_written).toBe(false);
    expect((await runProjection(store, logStatsProjection, { catalog, cacheDir, now: NOW, snapshotEvery: 5 })).snapshot_written).toBe(false);
    expect(loadSnapshot(cacheDir, 'log_stats', 1).kind).toBe(SnapshotLoadKind.MISSING);
    expect((await runProjection(store, logStatsProjection, { catalog, cacheDir, now: NOW, snapshotEvery: 4 })).snapshot_written).toBe(true);
    await appendAll(store, notes(1003), 500);
    const big = await runProjection(store, logStatsProjection, { catalog, cacheDir, now: NOW });
    expect(big).toMatchObject({ from_snapshot: true, folded: 1003, snapshot_written: true, seq: 1007 });
  });

  it("writes a snapshot after the projection's own interval when it has one (the option still wins)", async () => {
    const { store, cacheDir } = STORES.memory();
    // The interval grows with the state, as the work-unit fold's does: 4 events per stream seen.
    const scaled = { ...logStatsProjection, snapshotEvery: (state: ReturnType<typeof logStatsProjection.init>) => 4 * state.streams.size };
    await appendAll(store, notes(2)); // 2 streams: 8 needed
    expect(await runProjection(store, scaled, { catalog, cacheDir, now: NOW })).toMatchObject({ folded: 2, snapshot_written: false });
    await appendAll(store, notes(4, 'u')); // 3 streams: 12 needed
    expect(await runProjection(store, scaled, { catalog, cacheDir, now: NOW })).toMatchObject({ folded: 6, snapshot_written: false });
    expect(await runProjection(store, scaled, { catalog, cacheDir, now: NOW, snapshotEvery: 6 })).toMatchObject({ folded: 6, snapshot_written: true });
    await appendAll(store, notes(11, 'w'));
    expect(await runProjection(store, scaled, { catalog, cacheDir, now: NOW })).toMatchObject({ from_snapshot: true, folded: 11, snapshot_written: false });
    await appendAll(store, notes(1, 'x'));
    expect(await runProjection(store, scaled, { catalog, cacheDir, now: NOW })).toMatchObject({
      from_snapshot: true,
      folded: 12,
      snapshot_written: true,
      seq: 18,
    });
  });

  it('folds several projections in one pass over the log, each from its own snapshot', async () => {
    const { store, cacheDir } = STORES.memory();
    const reads: ReadOptions[] = [];
    const counted = wrapStore(store, (o) => reads.push(o));
    await appendAll(store, notes(6));
    await runProjection(store, noteTexts, { catalog, cacheDir, now: NOW, snapshotEvery: 1 });
    await appendAll(store, notes(4, 'u'));

    const runs = await runProjections(counted, [logStatsProjection, noteTexts], { catalog, cacheDir, now: NOW });
    expect(runs.map((r) => [r.from_snapshot, r.folded])).toEqual([
      [false, 10],
      [true, 4],
    ]);
    // One point read to check the snapshot's hash, then one pass from the earliest start to the
    // end of the log (folding to the head needs no separate head() read).
    expect(reads).toEqual([{ from: 6, to: 6 }, { from: 1 }]);
    expect(viewsOf(runs)).toBe(await referenceViews(store));

    reads.length = 0;
    const three = await runProjections(counted, [logStatsProjection, noteTexts, { ...noteTexts, name: 'note_texts_2' }], { catalog, now: NOW });
    expect(reads).toHaveLength(1);
    expect(three[2].view).toEqual(three[1].view);
  });

  it('refuses to continue a fold across a break in the chain', async () => {
    const { store } = STORES.memory();
    await appendAll(store, notes(4));
    const skipping = wrapStore(
      store,
      () => undefined,
      async function* (events) {
        for await (const e of events) if (e.seq !== 2) yield e;
      },
    );
    await expect(runProjection(skipping, logStatsProjection, { catalog, now: NOW })).rejects.toMatchObject({ code: 'LOG_CORRUPT' });
    const forged = wrapStore(
      store,
      () => undefined,
      async function* (events) {
        for await (const e of events) yield e.seq === 3 ? { ...e, prev: GENESIS_HASH } : e;
      },
    );
    await expect(runProjection(forged, logStatsProjection, { catalog, now: NOW })).rejects.toMatchObject({ code: 'LOG_CORRUPT' });
  });

  it('gives the initial view for the empty log and for to = 0, and clamps `to` to the head', async () => {
    const { store, cacheDir } = STORES.memory();
    const empty = await runProjection(store, logStatsProjection, { catalog, cacheDir, now: NOW, snapshotEvery: 1 });
    expect(empty).toMatchObject({ seq: 0, hash: GENESIS_HASH, folded: 0, from_snapshot: false, snapshot_written: false });
    await appendAll(store, notes(3));
    expect((await runProjection(store, logStatsProjection, { catalog, now: NOW, to: 0 })).view.events).toBe(0);
    const beyond = await runProjection(store, logStatsProjection, { catalog, cacheDir, now: NOW, to: 99, snapshotEvery: 1 });
    expect(beyond).toMatchObject({ seq: 3, snapshot_written: true });
    await expect(runProjection(store, logStatsProjection, { catalog, now: NOW, to: -1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(runProjection(store, logStatsProjection, { catalog, now: NOW, snapshotEvery: 0 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('hands projections upcast events (today’s shape), without validating them', async () => {
    const { store } = STORES.memory();
    await store.append([
      { type: 'legacy.noted', stream: 'legacy/a', data: { txt: 'old' } },
      { type: 'legacy.noted', stream: 'legacy/a', data: { text: 'new' } },
    ]);
    const seen: unknown[] = [];
    const collect: Projection<null, unknown[]> = {
      name: 'collect',
      version: 1,
      init: () => null,
      apply(state, event: BatonEvent) {
        seen.push(event.data);
        return state;
      },
      view: () => seen,
    };
    await runProjection(store, collect, { catalog, now: NOW });
    expect(seen).toEqual([{ text: 'old' }, { text: 'new' }]);
  });
});

describe('views over one fold (Projection.fold)', () => {
  /** A family of views over one counting fold; `applied` counts apply calls across the family. */
  function family(version = 1, token: object = {}) {
    const counter = { applied: 0 };
    const member = (name: string, v = version): Projection<{ n: number; last: number }, string> => ({
      name,
      version: v,
      fold: token,
      init: () => ({ n: 0, last: 0 }),
      apply(state, event) {
        counter.applied += 1;
        state.n += 1;
        state.last = event.seq;
        return state;
      },
      view: (state) => `${name}:${state.n}@${state.last}`,
    });
    return { counter, member };
  }
  const notes = (k: number): NewEvent[] => Array.from({ length: k }, (_, i) => ({ type: 'note.recorded', stream: `note/n${i % 3}`, data: { text: `t${i}` } }));

  it('folds the family once per event and gives every member the same state', async () => {
    const { store } = STORES.memory();
    await appendAll(store, notes(10), 4);
    const { counter, member } = family();
    const [a, b, c] = await runProjections(store, [member('a'), member('b'), member('c')], { catalog, now: NOW });
    expect(counter.applied).toBe(10);
    expect([a.view, b.view, c.view]).toEqual(['a:10@10', 'b:10@10', 'c:10@10']);
    expect(b.state).toBe(a.state);
    expect([a.folded, b.folded, c.folded]).toEqual([10, 10, 10]);
  });

  it('folds members that start elsewhere (a snapshot) or have another version on their own, with the same results', async () => {
    const { store, cacheDir } = STORES.jsonl();
    await appendAll(store, notes(6), 3);
    const first = family();
    await runProjection(store, first.member('a'), { catalog, now: NOW, cacheDir, snapshotEvery: 1 }); // snapshot of a at seq 6
    await appendAll(store, notes(4), 2);
    const { counter, member } = family(1, first.member('x').fold as object);
    const runs = await runProjections(store, [member('a'), member('b'), member('c', 2)], { catalog, now: NOW, cacheDir });
    expect(runs.map((r) => r.view)).toEqual(['a:10@10', 'b:10@10', 'c:10@10']);
    expect(runs[0]!.from_snapshot).toBe(true);
    // a folds 4 (from its snapshot), b folds 10 from scratch, c (another version) 10 on its own.
    expect(counter.applied).toBe(4 + 10 + 10);
    expect(runs[1]!.state).not.toBe(runs[0]!.state);
  });

  it('leaves projections without a fold, or with different folds, to themselves', async () => {
    const { store } = STORES.memory();
    await appendAll(store, notes(5), 5);
    const one = family();
    const two = family();
    await runProjections(store, [one.member('a'), two.member('b')], { catalog, now: NOW });
    expect([one.counter.applied, two.counter.applied]).toEqual([5, 5]);
  });
});

describe('EventCatalog.upcast', () => {
  const stored = (type: string, data: Record<string, unknown>): StoredEvent => ({
    v: 1,
    seq: 1,
    id: '01J00000000000000000000000',
    type,
    stream: 'legacy/a',
    at: NOW,
    actor: 'system',
    data,
    prev: GENESIS_HASH,
    hash: 'a'.repeat(64),
  });

  it('applies upcasters and keeps the envelope', () => {
    const event = stored('legacy.noted', { txt: 'x' });
    expect(catalog.upcast(event)).toEqual({ ...event, data: { text: 'x' } });
    expect(event.data).toEqual({ txt: 'x' });
  });

  it('skips schema validation (the fast path), unlike decode', () => {
    const invalid = stored('note.recorded', { text: '' });
    expect(catalog.decode(invalid)).toMatchObject({ ok: false, reason: 'invalid_data' });
    expect(catalog.upcast(invalid)).toBe(invalid);
  });

  it('passes unknown types through unchanged', () => {
    const unknown = stored('mystery.happened', { anything: [1, 2] });
    expect(catalog.upcast(unknown)).toBe(unknown);
  });
});
