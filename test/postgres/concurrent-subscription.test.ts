import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewEvent, StoredEvent } from '../../events/envelope.js';
import { createCatalog } from '../../events/index.js';
import { planAppend, validateBatch } from '../../src/store/append-plan.js';
import type { EventStore } from '../../src/store/contract.js';
import { emptyRowArrays, insertEventsSql, pushRow, rowArrayParams } from '../../src/store/postgres/event-rows.js';
import { channelFor } from '../../src/store/postgres/notification-hub.js';
import { connectionConfig } from '../../src/store/postgres/open-postgres-store.js';
import type { PostgresEventStore } from '../../src/store/postgres/postgres-store.js';
import { resolvePostgresTarget } from '../../src/store/postgres/postgres-target.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { newWorkspaceId, openOn } from './postgres-harness.js';

let cluster: PostgresCluster;
const opened: PostgresEventStore[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
});

afterAll(async () => {
  for (const store of opened) await store.close();
  await cluster?.stop();
});

async function open(workspace: string, options: Parameters<typeof openOn>[2] = {}): Promise<PostgresEventStore> {
  const store = await openOn(cluster, workspace, options);
  opened.push(store);
  return store;
}

const note = (stream: string, text: string): NewEvent => ({ type: 'note.recorded', stream, data: { text } });
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

async function readAll(store: EventStore): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const event of store.read()) out.push(event);
  return out;
}

/** A subscriber that records what it gets and fails on any delivery out of order or twice. */
function record(store: EventStore, from = 1): { delivered: StoredEvent[]; errors: unknown[]; close: () => Promise<void>; caughtUp: Promise<void> } {
  const delivered: StoredEvent[] = [];
  const errors: unknown[] = [];
  const sub = store.subscribe(
    from,
    (event) => {
      const expected = (delivered.at(-1)?.seq ?? from - 1) + 1;
      if (event.seq !== expected) errors.push(new Error(`delivered seq ${event.seq} where ${expected} was next`));
      delivered.push(event);
    },
    { onError: (error) => errors.push(error) },
  );
  return { delivered, errors, close: () => sub.close(), caughtUp: sub.caughtUp };
}

describe('postgres: concurrent writers and a live subscriber', () => {
  it('delivers every event of 8 concurrent writer connections once, in seq order, none skipped', async () => {
    const workspace = newWorkspaceId('writers');
    const subscriberStore = await open(workspace);
    const writers = await Promise.all(Array.from({ length: 8 }, () => open(workspace, { maxConnections: 1 })));
    const sub = record(subscriberStore);
    await sub.caughtUp;
    const perWriter = 40;
    // Each writer alternates single events and small batches, with expected versions on its own
    // stream, so every append also exercises the per-stream check under contention.
    const results = await Promise.all(
      writers.map(async (writer, w) => {
        let version = 0;
        const seqs: number[] = [];
        for (let i = 0; i < perWriter;) {
          const size = i % 3 === 2 ? 3 : 1;
          const events = Array.from({ length: size }, (_, k) => note(`note/w${w}`, `w${w} e${i + k}`));
          const result = await writer.append(events, { expectedVersion: version });
          version += size;
          i += size;
          seqs.push(...result.events.map((e) => e.seq));
        }
        return seqs;
      }),
    );
    const total = results.flat().length;
    await waitFor(() => sub.delivered.length >= total, `${total} delivered events`);
    await sleep(200);
    await sub.close();
    expect(sub.errors).toEqual([]);
    expect(sub.delivered.map((e) => e.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(new Set(sub.delivered.map((e) => e.id)).size).toBe(total);
    expect(sub.delivered).toEqual(await readAll(subscriberStore));
    expect([...results.flat()].sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(await subscriberStore.verify()).toEqual({ ok: true, head_seq: total, checked: total, first_bad: null });
  });

  it('holds delivery behind an append transaction held open, then delivers it and the writers queued behind it in order', async () => {
    const workspace = newWorkspaceId('held');
    let releaseHeld!: () => void;
    const held = new Promise<void>((resolve) => (releaseHeld = resolve));
    let holding!: () => void;
    const isHolding = new Promise<void>((resolve) => (holding = resolve));
    const slow = await open(workspace, {
      maxConnections: 1,
      beforeCommit: async () => {
        holding();
        await held;
      },
    });
    const writers = await Promise.all(Array.from({ length: 7 }, () => open(workspace, { maxConnections: 1 })));
    const subscriberStore = await open(workspace);
    await writers[0]!.append([note('note/before', 'one'), note('note/before', 'two')]);
    const sub = record(subscriberStore);
    await waitFor(() => sub.delivered.length === 2, 'the first two events');

    const slowAppend = slow.append([note('note/slow', 'held open')]);
    await isHolding;
    // The held transaction has written seq 3 but not committed. Every later writer queues on the
    // workspace's head row: none can commit ahead of it, so nothing after seq 2 becomes visible.
    let settled = 0;
    const later = writers.map((writer, w) => writer.append([note(`note/w${w}`, `after the held one ${w}`)]).finally(() => (settled += 1)));
    await sleep(500);
    expect(settled).toBe(0);
    expect(sub.delivered.map((e) => e.seq)).toEqual([1, 2]);
    expect((await subscriberStore.head()).seq).toBe(2);

    releaseHeld();
    const slowResult = await slowAppend;
    const laterResults = await Promise.all(later);
    expect(slowResult.events[0]!.seq).toBe(3);
    expect(laterResults.map((r) => r.events[0]!.seq).sort((a, b) => a - b)).toEqual([4, 5, 6, 7, 8, 9, 10]);
    await waitFor(() => sub.delivered.length === 10, '10 delivered events');
    await sleep(200);
    await sub.close();
    expect(sub.errors).toEqual([]);
    expect(sub.delivered.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(sub.delivered[2]!.stream).toBe('note/slow');
  });

  it('never skips an event whose transaction commits after a later one (writers bypassing the head lock)', async () => {
    // The adapter never lets this happen (the head-row lock orders commits); this test breaks that
    // on purpose with raw SQL to prove the reader's own rule: deliver only the gap-free run of seq.
    const workspace = newWorkspaceId('bypass');
    const store = await open(workspace);
    await store.append([note('note/a', 'one'), note('note/a', 'two')]);
    const sub = record(store);
    await waitFor(() => sub.delivered.length === 2, 'the first two events');

    // Three valid, chained events for seq 3, 4, 5, as the adapter would have built them.
    const catalog = createCatalog();
    const head = await store.head();
    const plan = planAppend(
      await validateBatch(catalog, [note('note/raw', 'three')]),
      { seq: head.seq, hash: head.hash, streams: new Map(), idempotency: new Map() },
      { now: () => new Date().toISOString(), defaultActor: 'system' },
    );
    if (plan.kind !== 'write') throw new Error('expected a write plan');
    const third = plan.events[0]!;
    const rest = planAppend(
      await validateBatch(catalog, [note('note/raw', 'four'), note('note/raw', 'five')]),
      { seq: 3, hash: third.hash, streams: new Map([['note/raw', 1]]), idempotency: new Map() },
      { now: () => new Date().toISOString(), defaultActor: 'system', lastId: third.id },
    );
    if (rest.kind !== 'write') throw new Error('expected a write plan');

    const target = resolvePostgresTarget({ url: cluster.urlFor(workspace) });
    const slowClient = new pg.Client(connectionConfig(target, 5000));
    const fastClient = new pg.Client(connectionConfig(target, 5000));
    await slowClient.connect();
    await fastClient.connect();
    try {
      const insert = async (client: pg.Client, events: StoredEvent[], firstVersion: number): Promise<void> => {
        const rows = emptyRowArrays();
        events.forEach((e, i) => pushRow(rows, e, firstVersion + i));
        await client.query(insertEventsSql(2), [workspace, ...rowArrayParams(rows)]);
      };
      // The slow transaction starts first (smaller transaction id), writes seq 3, and stays open.
      await slowClient.query('BEGIN');
      await insert(slowClient, [third], 1);
      const slowXid = (await slowClient.query<{ xid: string }>('SELECT pg_current_xact_id()::text AS xid')).rows[0]!.xid;
      // A later transaction writes seq 4 and 5 and commits while seq 3 is still in flight.
      await fastClient.query('BEGIN');
      await insert(fastClient, rest.events, 2);
      const fastXid = (await fastClient.query<{ xid: string }>('SELECT pg_current_xact_id()::text AS xid')).rows[0]!.xid;
      await fastClient.query('SELECT pg_notify($1, $2)', [channelFor(workspace), '5']);
      await fastClient.query('COMMIT');
      expect(BigInt(slowXid)).toBeLessThan(BigInt(fastXid));
      const visible = await fastClient.query<{ seq: string }>('SELECT seq FROM baton_events ORDER BY seq');
      expect(visible.rows.map((r) => Number(r.seq))).toEqual([1, 2, 4, 5]);

      // Notified and polled for well over a second: seq 4 and 5 are visible, yet held back.
      await sleep(1500);
      expect(sub.delivered.map((e) => e.seq)).toEqual([1, 2]);
      expect(sub.errors).toEqual([]);

      await slowClient.query('UPDATE baton_heads SET seq = 5, hash = $1, last_id = $2', [rest.events[1]!.hash, rest.events[1]!.id]);
      await slowClient.query('SELECT pg_notify($1, $2)', [channelFor(workspace), '5']);
      await slowClient.query('COMMIT');
    } finally {
      await slowClient.end();
      await fastClient.end();
    }
    await waitFor(() => sub.delivered.length === 5, 'all five events');
    await sleep(200);
    await sub.close();
    expect(sub.errors).toEqual([]);
    expect(sub.delivered.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(sub.delivered.slice(2)).toEqual([third, ...rest.events]);
    expect(await store.verify()).toEqual({ ok: true, head_seq: 5, checked: 5, first_bad: null });
  });
});
