import { describe, expect } from 'vitest';
import { refusal } from '../async-checks.js';
import { note, readAll, seqsOf, type Scenarios } from './harness.js';

/** The store contract on idempotency keys: a retried batch is appended once. */
export function describeIdempotency({ scenario, expectUnchanged }: Scenarios): void {
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
}
