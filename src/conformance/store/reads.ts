import { describe, expect } from 'vitest';
import type { StoredEvent } from '../../../events/envelope.js';
import { GENESIS_HASH } from '../../../events/patterns.js';
import type { EventStore, ReadOptions } from '../../store/contract.js';
import { NOTE, note, readAll, seqsOf, type Scenarios } from './harness.js';

/** The store contract on reads: ranges and filters, head, and stream versions, across handles. */
export function describeReads(scenarios: Scenarios): void {
  describe('read, head, streamVersion', () => {
    readRangeAndFilterCases(scenarios);
    headAndVersionCases(scenarios);
  });
}

/** Seven events over three streams, in four batches. */
async function seed(store: EventStore): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  out.push(...(await store.append([note('note/a', '1'), note('note/b', '2')])).events);
  out.push(...(await store.append([note('note/c', '3')])).events);
  out.push(...(await store.append([note('note/a', '4'), note('note/a', '5'), note('note/b', '6')])).events);
  out.push(...(await store.append([note('note/c', '7')])).events);
  return out;
}

function readRangeAndFilterCases({ scenario }: Scenarios): void {
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
    const cases: ReadOptions[] = [
      {},
      { from: 3 },
      { to: 2 },
      { from: 2, to: 5 },
      { from: 8 },
      { streams: ['note/a'] },
      { types: [NOTE], streams: ['note/b'], from: 3 },
      { types: ['wu.claimed'] },
    ];
    for (const options of cases) {
      const chunks: (readonly StoredEvent[])[] = [];
      for await (const chunk of readChunks(options)) chunks.push(chunk);
      expect(chunks.every((chunk) => chunk.length > 0)).toBe(true);
      expect(chunks.flat()).toEqual(await readAll(store, options));
    }
  });
}

function headAndVersionCases({ scenario }: Scenarios): void {
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
}
