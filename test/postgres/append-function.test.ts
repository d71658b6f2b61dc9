import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewEvent, StoredEvent } from '../../events/envelope.js';
import { WORKSPACE_SETTING } from '../../src/store/postgres/migrations.js';
import type { PostgresEventStore } from '../../src/store/postgres/postgres-store.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { newWorkspaceId, openOn } from './postgres-harness.js';

/**
 * The append as one call of `baton_append` (migration 2): what it decides under the head lock when
 * writers race, and what a backend killed halfway through it leaves behind.
 */

let cluster: PostgresCluster;
let admin: pg.Client;
const opened: PostgresEventStore[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
  admin = new pg.Client({ connectionString: cluster.superuserUrl });
  await admin.connect();
});

afterAll(async () => {
  for (const store of opened) await store.close();
  await admin?.end();
  await cluster?.stop();
});

async function open(workspace: string): Promise<PostgresEventStore> {
  const store = await openOn(cluster, workspace);
  opened.push(store);
  return store;
}

const note = (stream: string, text: string): NewEvent => ({ type: 'note.recorded', stream, data: { text } });

async function readAll(store: PostgresEventStore): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const event of store.read()) out.push(event);
  return out;
}

/** A connection of the app role confined to `workspace`, as the adapter's own are. */
async function appConnection(workspace: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: cluster.appUrl, options: `-c ${WORKSPACE_SETTING}=${workspace}` });
  await client.connect();
  return client;
}

/** Backends running baton_append that wait for a lock (pid, and whether they have written: an xid). */
async function waitingAppends(): Promise<{ pid: number; wrote: boolean }[]> {
  const rows = await admin.query<{ pid: number; wrote: boolean }>(
    `SELECT pid, backend_xid IS NOT NULL AS wrote FROM pg_stat_activity
     WHERE wait_event_type = 'Lock' AND query LIKE '%baton_append(%' ORDER BY pid`,
  );
  return rows.rows;
}

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Starts the appends while another connection holds the workspace's head row, so every one is
 * inside baton_append waiting on that lock before any decides; then lets them go at once.
 */
async function raceOnHeadLock<T>(workspace: string, start: () => Promise<T>[]): Promise<PromiseSettledResult<T>[]> {
  const holder = await appConnection(workspace);
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT seq FROM baton_heads WHERE workspace_id = $1 FOR UPDATE', [workspace]);
    const racing = start();
    // Settled from the start: the loser may be refused while COMMIT is still on its way back, and
    // a rejection nobody is listening to yet is an unhandled one.
    const settled = Promise.allSettled(racing);
    await waitFor(async () => ((await waitingAppends()).length === racing.length ? true : undefined), 'both appends to wait on the head lock');
    await holder.query('COMMIT');
    return await settled;
  } finally {
    await holder.end();
  }
}

describe('postgres: baton_append under racing writers', () => {
  it('stores exactly one event when two writers race with the same idempotency key', async () => {
    const workspace = newWorkspaceId('same-key');
    const first = await open(workspace);
    const second = await open(workspace);
    await first.append([note('note/setup', 'before the race')]);

    const results = (
      await raceOnHeadLock(workspace, () =>
        [first, second].map((store) => store.append([note('note/raced', 'only once')], { idempotencyKey: 'race-key-1', expectedVersion: 'no_stream' })),
      )
    ).map((settled) => {
      if (settled.status === 'rejected') throw settled.reason;
      return settled.value;
    });

    expect(results.map((r) => r.deduplicated).sort()).toEqual([false, true]);
    expect(results[0]!.events).toEqual(results[1]!.events);
    expect(results[0]!.events.map((e) => e.seq)).toEqual([2]);
    const log = await readAll(first);
    expect(log.filter((e) => e.stream === 'note/raced')).toHaveLength(1);
    expect(log.map((e) => e.seq)).toEqual([1, 2]);
    expect(await first.sql('SELECT key, first_seq::int AS first, last_seq::int AS last FROM baton_idempotency')).toEqual([
      { key: 'race-key-1', first: 2, last: 2 },
    ]);
    expect(await second.verify()).toEqual({ ok: true, head_seq: 2, checked: 2, first_bad: null });
  });

  it('refuses the second of two racing writers with the same expected version, and the loser writes nothing', async () => {
    const workspace = newWorkspaceId('same-version');
    const first = await open(workspace);
    const second = await open(workspace);
    await first.append([note('note/contested', 'version 1')]);
    const settled = await raceOnHeadLock(workspace, () =>
      [first, second].map((store, i) => store.append([note('note/contested', `version 2 by ${i}`)], { expectedVersion: 1 })),
    );
    const won = settled.filter((s) => s.status === 'fulfilled');
    const lost = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toMatchObject({ code: 'CONFLICT', details: { stream: 'note/contested', expected: 1, actual: 2 } });
    expect((await readAll(second)).map((e) => e.seq)).toEqual([1, 2]);
    expect(await second.verify()).toMatchObject({ ok: true, head_seq: 2 });
  });

  it('rebuilds on the head another writer moved, so a writer that saw an old head still extends the chain', async () => {
    const workspace = newWorkspaceId('stale-head');
    const early = await open(workspace);
    const busy = await open(workspace);
    await early.append([note('note/stale', 'seen by early')]);
    // `early` last saw seq 1; `busy` moves the head to 21 behind its back.
    for (let i = 0; i < 20; i++) await busy.append([note('note/busy', `moved ${i}`)]);
    const result = await early.append([note('note/stale', 'after the others')], { expectedVersion: 1 });
    expect(result.events.map((e) => e.seq)).toEqual([22]);
    const log = await readAll(busy);
    expect(result.events[0]!.prev).toBe(log[20]!.hash);
    expect(result.events[0]!.id > log[20]!.id).toBe(true);
    expect(await busy.verify()).toEqual({ ok: true, head_seq: 22, checked: 22, first_bad: null });
  });
});

describe('postgres: a backend killed inside baton_append', () => {
  it('leaves nothing half-written: no events, no head move, no idempotency key; the next append takes the same seq', async () => {
    const workspace = newWorkspaceId('killed-fn');
    const store = await open(workspace);
    await store.append([note('note/kept', 'one'), note('note/kept', 'two')]);
    const before = await readAll(store);
    const headBefore = await store.head();

    // The function writes the events and moves the head before it records the key: holding the key
    // table stops it exactly between those steps, with its rows written but not committed.
    const blocker = await appConnection(workspace);
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE baton_idempotency IN EXCLUSIVE MODE');
      const doomed = store.append([note('note/doomed', 'a'), note('note/doomed', 'b'), note('note/doomed', 'c')], { idempotencyKey: 'doomed-key' });
      const doomedSettled = doomed.then(
        () => 'written',
        (error: unknown) => error,
      );
      const [backend] = await waitFor(async () => {
        const waiting = await waitingAppends();
        return waiting.length === 1 ? waiting : undefined;
      }, 'the append to stop inside baton_append');
      // It has written (its transaction holds an xid) and stands between its steps.
      expect(backend!.wrote).toBe(true);
      const locks = await admin.query<{ relation: string }>(
        `SELECT c.relname AS relation FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
         WHERE l.pid = $1 AND l.mode = 'RowExclusiveLock' AND c.relname IN ('baton_events', 'baton_heads') ORDER BY 1`,
        [backend!.pid],
      );
      expect(locks.rows.map((r) => r.relation)).toEqual(['baton_events', 'baton_heads']);

      await admin.query('SELECT pg_terminate_backend($1)', [backend!.pid]);
      expect(await doomedSettled).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await blocker.query('ROLLBACK');
    } finally {
      await blocker.end();
    }

    expect(await store.head()).toEqual(headBefore);
    expect(await readAll(store)).toEqual(before);
    expect(await store.sql('SELECT count(*)::int AS n FROM baton_idempotency')).toEqual([{ n: 0 }]);
    expect(await store.sql('SELECT count(*)::int AS n FROM baton_events')).toEqual([{ n: 2 }]);

    // The key was never recorded: using it again writes, at the seq the killed append had taken.
    const again = await store.append([note('note/doomed', 'a'), note('note/doomed', 'b'), note('note/doomed', 'c')], { idempotencyKey: 'doomed-key' });
    expect(again.deduplicated).toBe(false);
    expect(again.events.map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(again.events[0]!.prev).toBe(headBefore.hash);
    expect(await store.verify()).toEqual({ ok: true, head_seq: 5, checked: 5, first_bad: null });
  });
});
