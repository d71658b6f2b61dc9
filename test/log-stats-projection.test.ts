import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCatalog, defineEvent, GENESIS_HASH, type NewEvent, type StoredEvent } from '../events/index.js';
import { PROJECTIONS } from '../projections/index.js';
import { logStatsProjection, type LogStatsState } from '../projections/log-stats.js';
import { foldEvents } from '../projections/projection.js';
import type { BatonEvent } from '../events/baton-event.js';
import { decoded as decodedEvent } from './helpers/decoded.js';
import type { EventStore } from '../src/store/contract.js';
import { MemoryEventStore } from '../src/store/memory-store.js';
import { runProjection } from '../src/store/projection-runner.js';

const NOW = '2026-05-09T12:00:00.000Z';
const probeSeen = defineEvent({ type: 'probe.seen', schema: z.strictObject({ n: z.number().int() }), streams: ['probe'], description: 'test' });
const catalog = createCatalog([probeSeen]);

const arbEvent: fc.Arbitrary<NewEvent> = fc.oneof(
  fc.record({ id: fc.integer({ min: 0, max: 40 }), text: fc.string({ minLength: 1, maxLength: 8 }) }).map(({ id, text }) => ({
    type: 'note.recorded',
    stream: `note/n${id}`,
    data: { text },
  })),
  fc.integer({ min: 0, max: 5 }).map((id) => ({ type: 'probe.seen', stream: `probe/p${id}`, data: { n: id } })),
);

async function storeWith(events: readonly NewEvent[]): Promise<{ store: EventStore; stored: StoredEvent[] }> {
  const store = new MemoryEventStore({ catalog });
  const stored: StoredEvent[] = [];
  for (let i = 0; i < events.length; i += 4) stored.push(...(await store.append(events.slice(i, i + 4))).events);
  return { store, stored };
}

function decoded(type: string, stream: string, seq: number): BatonEvent {
  return decodedEvent({ v: 1, seq, id: `id${seq}`, type, stream, at: NOW, actor: 'system', data: {}, prev: GENESIS_HASH, hash: String(seq % 10).repeat(64) });
}

describe('log_stats projection', () => {
  it('counts events, distinct streams and events per type, and names the head', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbEvent, { maxLength: 60 }), async (events) => {
        const { store, stored } = await storeWith(events);
        const run = await runProjection(store, logStatsProjection, { catalog, now: NOW });
        const head = await store.head();
        const byType: Record<string, number> = {};
        for (const e of events) byType[e.type] = (byType[e.type] ?? 0) + 1;
        const expected = {
          v: 1,
          type: 'log_stats',
          generated_at: NOW,
          head_seq: head.seq,
          head_hash: head.hash,
          events: events.length,
          streams: new Set(events.map((e) => e.stream)).size,
          by_type: Object.fromEntries(Object.entries(byType).sort(([a], [b]) => (a < b ? -1 : 1))),
        };
        // Byte-identical, so key order (of the envelope and of by_type) is part of the contract.
        expect(JSON.stringify(run.view)).toBe(JSON.stringify(expected));
        expect(run.view.head_hash).toBe(stored.at(-1)?.hash ?? GENESIS_HASH);
      }),
      { numRuns: 100 },
    );
  });

  it('gives zeros and the genesis hash for the empty log', () => {
    expect(logStatsProjection.view(logStatsProjection.init(), NOW)).toEqual({
      v: 1,
      type: 'log_stats',
      generated_at: NOW,
      head_seq: 0,
      head_hash: GENESIS_HASH,
      events: 0,
      streams: 0,
      by_type: {},
    });
  });

  it('round-trips its state through JSON, so a view from a snapshot equals the view it was taken from', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a.x', 'b.y', 'c.z'), fc.integer({ min: 0, max: 30 })), { maxLength: 80 }), fc.nat(), (items, rawCut) => {
        const events = items.map(([type, id], i) => decoded(type, `s/${id}`, i + 1));
        const cut = rawCut % (events.length + 1);
        const scratch = foldEvents(logStatsProjection, events);
        const half = foldEvents(logStatsProjection, events.slice(0, cut));
        const restored = logStatsProjection.deserialize!(JSON.parse(JSON.stringify(logStatsProjection.serialize!(half))));
        const resumed = foldEvents(logStatsProjection, events.slice(cut), restored);
        expect(JSON.stringify(logStatsProjection.view(resumed, NOW))).toBe(JSON.stringify(logStatsProjection.view(scratch, NOW)));
        expect(JSON.stringify(logStatsProjection.serialize!(resumed))).toBe(JSON.stringify(logStatsProjection.serialize!(scratch)));
      }),
    );
  });

  it('keeps streams as a set (one entry per stream however many events) and by_type sorted by name', () => {
    const events = [decoded('z.last', 's/1', 1), decoded('a.first', 's/1', 2), decoded('m.mid', 's/2', 3), decoded('a.first', 's/1', 4)];
    const state: LogStatsState = foldEvents(logStatsProjection, events);
    expect([...state.streams]).toEqual(['s/1', 's/2']);
    const view = logStatsProjection.view(state, NOW);
    expect(Object.keys(view.by_type)).toEqual(['a.first', 'm.mid', 'z.last']);
    expect(view).toMatchObject({ events: 4, streams: 2, head_seq: 4, head_hash: '4'.repeat(64) });
  });

  it('keeps a type named like an Object key as plain data', () => {
    const view = logStatsProjection.view(foldEvents(logStatsProjection, [decoded('__proto__', 's/1', 1), decoded('constructor', 's/1', 2)]), NOW);
    expect(JSON.stringify(view.by_type)).toBe('{"__proto__":1,"constructor":1}');
  });

  it.each([
    ['null', null],
    ['a string', 'state'],
    ['a bad count', { events: -1, head_seq: 0, head_hash: GENESIS_HASH, streams: [], by_type: [] }],
    ['a bad hash', { events: 0, head_seq: 0, head_hash: 'x', streams: [], by_type: [] }],
    ['streams not a list', { events: 0, head_seq: 0, head_hash: GENESIS_HASH, streams: {}, by_type: [] }],
    ['a bad by_type pair', { events: 0, head_seq: 0, head_hash: GENESIS_HASH, streams: [], by_type: [['a.b']] }],
  ])('rejects a malformed snapshot state (%s)', (_label, json) => {
    expect(() => logStatsProjection.deserialize!(json)).toThrow();
  });

  it('is registered for `replay --view log_stats`, and the registry finds nothing for Object keys', () => {
    expect(PROJECTIONS['log_stats']).toBe(logStatsProjection);
    expect(PROJECTIONS['constructor']).toBeUndefined();
    expect(PROJECTIONS['__proto__']).toBeUndefined();
    expect(Object.keys(PROJECTIONS)).toContain('log_stats');
  });
});
