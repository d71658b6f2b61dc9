import { describe, expect } from 'vitest';
import type { NewEvent } from '../../../events/envelope.js';
import type { AppendOptions, AppendResult, ExpectedVersion } from '../../store/contract.js';
import { refusal } from '../async-checks.js';
import { NOTE, note, readAll, type Scenarios } from './harness.js';

/** The store contract on invalid input: refused, and nothing written. */
export function describeInvalidInput({ scenario, expectUnchanged }: Scenarios): void {
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
}
