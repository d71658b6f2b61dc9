import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewEvent, StoredEvent } from '../../events/envelope.js';
import { createCatalog } from '../../events/index.js';
import { GENESIS_HASH } from '../../events/patterns.js';
import { planAppend, validateBatch } from '../../src/store/append-plan.js';
import type { AppendOptions } from '../../src/store/contract.js';
import { emptyIndex } from '../../src/store/store-index.js';
import { emptyRowArrays, insertEventsSql, pushRow, rowArrayParams } from '../../src/store/postgres/event-rows.js';
import { migrate } from '../../src/store/postgres/migrate.js';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, WORKSPACE_SETTING } from '../../src/store/postgres/migrations.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { newWorkspaceId, openOn } from './postgres-harness.js';

/**
 * A database an earlier Baton left behind: schema version 1 (no append function), with events
 * written the way that version wrote them (head row locked, rows inserted over `unnest`, head and
 * idempotency key recorded in the same transaction). Opening it with this Baton migrates it
 * forward, and everything written before still reads, verifies and deduplicates.
 */

let cluster: PostgresCluster;

beforeAll(async () => {
  cluster = await startPostgresCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

const catalog = createCatalog();
const note = (stream: string, text: string): NewEvent => ({ type: 'note.recorded', stream, data: { text: `${text} — ünïcødé "quoted" ✓` } });

/** Append as schema version 1's adapter did, in one transaction on `client`. */
async function appendAsVersion1(client: pg.PoolClient, workspace: string, events: NewEvent[], options: AppendOptions = {}): Promise<StoredEvent[]> {
  const batch = await validateBatch(catalog, events, options);
  await client.query('BEGIN');
  try {
    await client.query('INSERT INTO baton_heads (workspace_id, seq, hash) VALUES ($1, 0, $2) ON CONFLICT DO NOTHING', [workspace, GENESIS_HASH]);
    const head = (
      await client.query<{ seq: string; hash: string; last_id: string }>('SELECT seq, hash, last_id FROM baton_heads WHERE workspace_id = $1 FOR UPDATE', [
        workspace,
      ])
    ).rows[0]!;
    const index = { ...emptyIndex(), seq: Number(head.seq), hash: head.hash };
    const versions = await client.query<{ stream: string; version: number }>('SELECT stream, max(stream_version) AS version FROM baton_events GROUP BY stream');
    for (const row of versions.rows) index.streams.set(row.stream, row.version);
    const plan = planAppend(batch, index, {
      now: () => '2025-01-02T03:04:05.000Z',
      defaultActor: 'old-baton',
      lastId: head.last_id === '' ? undefined : head.last_id,
    });
    if (plan.kind !== 'write') throw new Error('the fixture expects a write');
    const rows = emptyRowArrays();
    const running = new Map(index.streams);
    for (const event of plan.events) {
      const version = (running.get(event.stream) ?? 0) + 1;
      running.set(event.stream, version);
      pushRow(rows, event, version);
    }
    await client.query(insertEventsSql(2), [workspace, ...rowArrayParams(rows)]);
    const last = plan.events.at(-1)!;
    await client.query('UPDATE baton_heads SET seq = $2, hash = $3, last_id = $4 WHERE workspace_id = $1', [workspace, last.seq, last.hash, last.id]);
    if (batch.idempotencyKey !== undefined) {
      await client.query('INSERT INTO baton_idempotency (workspace_id, key, digest, first_seq, last_seq) VALUES ($1, $2, $3, $4, $5)', [
        workspace,
        batch.idempotencyKey,
        batch.digest,
        plan.events[0]!.seq,
        last.seq,
      ]);
    }
    await client.query('COMMIT');
    return plan.events;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

describe('postgres: a database of an earlier schema migrates forward on first use', () => {
  it('applies the pending migrations once, and the events written before still read, verify and deduplicate', async () => {
    expect(LATEST_SCHEMA_VERSION).toBeGreaterThan(1);
    const workspace = newWorkspaceId('older');
    const pool = new pg.Pool({ connectionString: cluster.appUrl, options: `-c ${WORKSPACE_SETTING}=${workspace}`, max: 1 });
    let written: StoredEvent[] = [];
    try {
      const client = await pool.connect();
      try {
        expect(await migrate(client, 1)).toEqual({ from: 0, to: 1 });
        expect((await client.query("SELECT count(*)::int AS n FROM pg_proc WHERE proname = 'baton_append'")).rows).toEqual([{ n: 0 }]);
        written = [
          ...(await appendAsVersion1(client, workspace, [note('note/old-a', 'first')])),
          ...(await appendAsVersion1(client, workspace, [note('note/old-a', 'second'), note('note/old-b', 'third')], { idempotencyKey: 'old-key' })),
          ...(await appendAsVersion1(client, workspace, [note('note/old-b', 'fourth')], { expectedVersion: 1 })),
        ];
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
    expect(written.map((e) => e.seq)).toEqual([1, 2, 3, 4]);

    const store = await openOn(cluster, workspace);
    try {
      expect(await store.sql('SELECT version FROM baton_migrations ORDER BY version')).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
      // Everything written before the migration reads back as written and verifies.
      const before: StoredEvent[] = [];
      for await (const event of store.read()) before.push(event);
      expect(before).toEqual(written);
      expect(await store.verify()).toEqual({ ok: true, head_seq: 4, checked: 4, first_bad: null });

      // The old key still deduplicates; the old stream versions still decide expected versions.
      const replay = await store.append([note('note/old-a', 'second'), note('note/old-b', 'third')], { idempotencyKey: 'old-key' });
      expect(replay).toEqual({ events: written.slice(1, 3), deduplicated: true });
      await expect(store.append([note('note/old-b', 'stale')], { expectedVersion: 1 })).rejects.toMatchObject({ code: 'CONFLICT', details: { actual: 2 } });

      // New appends extend the old chain, and the whole log verifies.
      const next = await store.append([note('note/old-b', 'after the migration')], { expectedVersion: 2 });
      expect(next.events[0]).toMatchObject({ seq: 5, prev: written[3]!.hash });
      expect(next.events[0]!.id > written[3]!.id).toBe(true);
      expect(await store.verify()).toEqual({ ok: true, head_seq: 5, checked: 5, first_bad: null });
    } finally {
      await store.close();
    }
  });
});
