import { describe, expect } from 'vitest';
import { note, type Scenarios } from './harness.js';

/** The store contract on batches: all of a batch is written, or none of it. */
export function describeAllOrNothing({ scenario, refusedUnchanged }: Scenarios): void {
  describe('append: all-or-nothing batches', () => {
    scenario('writes nothing from a batch that holds one schema-invalid event', async ({ store }) => {
      await store.append([note('note/a', 'existing')]);
      const error = await refusedUnchanged(store, 'INVALID_INPUT', () =>
        store.append([note('note/a', 'fine'), note('note/b', ''), note('note/c', 'also fine')]),
      );
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
}
