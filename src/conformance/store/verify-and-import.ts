import { describe, expect } from 'vitest';
import type { StoredEvent } from '../../../events/envelope.js';
import type { EventStore } from '../../store/contract.js';
import { refusal } from '../async-checks.js';
import { note, readAll, type Scenarios, type ConformanceHarness } from './harness.js';

/** The store contract on verify and storageInfo. */
export function describeVerify({ scenario }: Scenarios): void {
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
}

/** The store contract on importLog: an export loads into an empty store whole, or not at all. */
export function describeImport({ factory, scenario, expectUnchanged }: Scenarios): void {
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
}
