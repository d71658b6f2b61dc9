import { describe, expect } from 'vitest';
import { hashEvent } from '../../store/hash.js';
import { NOTE, note, readAll, seqsOf, withoutHash, type Scenarios } from './harness.js';

/** The store contract on positions: seq, ids, the hash chain and time. */
export function describeAppendPositions(scenarios: Scenarios): void {
  describe('append: positions, ids, hash chain, time', () => {
    describeSeqAndIds(scenarios);
    describeChainAndTime(scenarios);
  });
}

/** Seq assignment, the returned events, and unique ordered ids. */
function describeSeqAndIds({ scenario }: Scenarios): void {
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
}

/** The hash chain, and the at and actor each event gets. */
function describeChainAndTime({ scenario }: Scenarios): void {
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
}
