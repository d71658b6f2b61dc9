import { describe, expect } from 'vitest';
import type { ExpectedVersion } from '../../store/contract.js';
import { refusal } from '../async-checks.js';
import { note, readAll, seqsOf, type Scenarios } from './harness.js';

/** The store contract on expected versions: optimistic concurrency per stream. */
export function describeExpectedVersions(scenarios: Scenarios): void {
  const { scenario, refusedUnchanged, expectUnchanged } = scenarios;
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

    perStreamCases(scenarios);
  });
}

/** A single expected version covers every stream of the batch; a record names each stream's own. */
function perStreamCases({ scenario, refusedUnchanged, expectUnchanged }: Scenarios): void {
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
}
