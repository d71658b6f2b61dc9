import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewEvent, StoredEvent } from '../../events/envelope.js';
import { createCatalog } from '../../events/index.js';
import { GENESIS_HASH } from '../../events/patterns.js';
import { emptySealedColumns, sealBatch, validateBatch } from '../../src/store/append-plan.js';
import type { AppendOptions } from '../../src/store/contract.js';
import { migrate } from '../../src/store/postgres/migrate.js';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, WORKSPACE_SETTING } from '../../src/store/postgres/migrations.js';
import { channelFor } from '../../src/store/postgres/notification-hub.js';
import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.js';
import type { PostgresEventStore } from '../../src/store/postgres/postgres-store.js';
import { APP_DATABASE, APP_ROLE, SUPERUSER, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { newWorkspaceId } from './postgres-harness.js';

/**
 * Migration 4: appended rows stop carrying `prev` and `hash` beside the line that holds both. A
 * database at migration 3 with events migrates forward on first use; the events written before
 * keep their columns, still read, verify and deduplicate; the rows appended after carry neither
 * column, are that much smaller, extend the same chain, and `verify` still finds a tampered line
 * or a tampered column wherever one is stored.
 */

let cluster: PostgresCluster;

beforeAll(async () => {
  cluster = await startPostgresCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

const catalog = createCatalog();
const note = (stream: string, text: string): NewEvent => ({ type: 'note.recorded', stream, data: { text: `${text} — ünïcødé "quoted" \\ ✓` } });

type Head = { seq: number; hash: string; lastId: string };

/** Append through migration 3's function, as a Baton of that version did: one call, one commit. */
async function appendThroughVersion3(client: pg.PoolClient, workspace: string, head: Head, events: NewEvent[], options: AppendOptions = {}): Promise<StoredEvent[]> {
  const batch = await validateBatch(catalog, events, options);
  const columns = emptySealedColumns();
  const plan = sealBatch(batch, head, { now: () => '2025-06-07T08:09:10.000Z', defaultActor: 'v3-baton', lastId: head.lastId || undefined }, columns);
  const streams = [...batch.expected.keys()];
  const versions = [...batch.expected.values()].map((v) => (v === 'no_stream' ? 0 : v === 'stream_exists' ? -1 : v));
  const row = (
    await client.query<{ status: string }>('SELECT status FROM baton_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)', [
      workspace,
      head.seq,
      head.hash,
      batch.idempotencyKey ?? null,
      batch.digest,
      streams,
      versions,
      plan.bytes.toString('utf8', 0, plan.bytes.length - 1),
      columns.ids.join('\n'),
      columns.types.join('\n'),
      columns.streams.join('\n'),
      columns.ats.join('\n'),
      columns.actorsJson.join('\n'),
      columns.dataJson.join('\n'),
      columns.hashes.join('\n'),
      channelFor(workspace),
    ])
  ).rows[0]!;
  expect(row.status).toBe('written');
  return plan.events;
}

/**
 * Migrations are per database, so each scenario gets a database of its own, left at version 3 by
 * the fixture; the URL below points the app role at it.
 */
async function freshDatabase(): Promise<string> {
  const name = `v3_${newWorkspaceId('db').replace(/[^a-z0-9]/g, '_')}`;
  const admin = new pg.Client({ connectionString: cluster.superuserUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} OWNER ${APP_ROLE}`);
  } finally {
    await admin.end();
  }
  return cluster.appUrl.replace(`/${APP_DATABASE}?`, `/${name}?`);
}

function openStore(databaseUrl: string, workspace: string, actor = 'system'): Promise<PostgresEventStore> {
  return openPostgresStore({ url: `${databaseUrl}&workspace_id=${encodeURIComponent(workspace)}`, catalog, now: () => new Date().toISOString(), actor });
}

/** A workspace whose events were all written at schema version 3; returns them. */
async function writtenAtVersion3(databaseUrl: string, workspace: string): Promise<StoredEvent[]> {
  const pool = new pg.Pool({ connectionString: databaseUrl, options: `-c ${WORKSPACE_SETTING}=${workspace}`, max: 1 });
  try {
    const client = await pool.connect();
    try {
      await migrate(client, 3);
      expect((await client.query<{ version: number }>('SELECT max(version) AS version FROM baton_migrations')).rows).toEqual([{ version: 3 }]);
      const head = (): Head => ({ seq: written.length, hash: written.at(-1)?.hash ?? GENESIS_HASH, lastId: written.at(-1)?.id ?? '' });
      const written: StoredEvent[] = [];
      written.push(...(await appendThroughVersion3(client, workspace, head(), [note('note/v3-a', 'one')])));
      written.push(...(await appendThroughVersion3(client, workspace, head(), [note('note/v3-a', 'two'), note('note/v3-b', 'three')], { idempotencyKey: 'v3-key' })));
      return written;
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
}

/** The same connection as the adapter's, but free to write any column (tampering, as an intruder would). */
async function superuser(databaseUrl: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl.replace(`${APP_ROLE}@`, `${SUPERUSER}@`) });
  await client.connect();
  return client;
}

describe('postgres: migration 4 (rows leave prev and hash to their line)', () => {
  it('migrates a database at version 3 forward on first use: old events read, verify and deduplicate; new rows carry no prev or hash and extend the chain', async () => {
    expect(LATEST_SCHEMA_VERSION).toBeGreaterThanOrEqual(4);
    const workspace = newWorkspaceId('from-v3');
    const db = await freshDatabase();
    const written = await writtenAtVersion3(db, workspace);
    const store = await openStore(db, workspace);
    try {
      expect(await store.sql('SELECT version FROM baton_migrations ORDER BY version')).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
      const before: StoredEvent[] = [];
      for await (const event of store.read()) before.push(event);
      expect(before).toEqual(written);
      expect(await store.verify()).toEqual({ ok: true, head_seq: 3, checked: 3, first_bad: null });
      expect(await store.append([note('note/v3-a', 'two'), note('note/v3-b', 'three')], { idempotencyKey: 'v3-key' })).toEqual({ events: written.slice(1), deduplicated: true });

      const next = await store.append([note('note/v3-b', 'four'), note('note/v4-c', 'five')], { idempotencyKey: 'v4-key', expectedVersion: { 'note/v3-b': 1 } });
      expect(next.events.map((e) => e.seq)).toEqual([4, 5]);
      expect(next.events[0]!.prev).toBe(written[2]!.hash);
      const rows = await store.sql<{ seq: string; stream_version: number; prev: string | null; hash: string | null }>('SELECT seq, stream_version, prev, hash FROM baton_events ORDER BY seq');
      expect(rows).toEqual([
        ...written.map((e, i) => ({ seq: String(e.seq), stream_version: [1, 2, 1][i], prev: e.prev, hash: e.hash })),
        { seq: '4', stream_version: 2, prev: null, hash: null },
        { seq: '5', stream_version: 1, prev: null, hash: null },
      ]);
      expect(await store.head()).toEqual({ seq: 5, hash: next.events[1]!.hash });
      expect(await store.verify()).toEqual({ ok: true, head_seq: 5, checked: 5, first_bad: null });
      expect(await store.append([note('note/v3-b', 'four'), note('note/v4-c', 'five')], { idempotencyKey: 'v4-key' })).toEqual({ events: next.events, deduplicated: true });
      const after: StoredEvent[] = [];
      for await (const event of store.read()) after.push(event);
      expect(after).toEqual([...written, ...next.events]);
    } finally {
      await store.close();
    }
  });

  it('stores an appended event in fewer bytes than the same event written at version 3', async () => {
    const workspace = newWorkspaceId('bytes');
    const db = await freshDatabase();
    const written = await writtenAtVersion3(db, workspace);
    const store = await openStore(db, workspace, 'v4-baton');
    try {
      // Same stream, same text length as seq 2 (the batch of two): only the row's shape differs.
      const next = await store.append([note('note/v3-a', 'TWO'), note('note/v3-b', 'THREE')], { idempotencyKey: 'v4-key' });
      expect(Buffer.byteLength(next.events[0]!.id)).toBe(Buffer.byteLength(written[1]!.id));
      const sizes = await store.sql<{ seq: string; row: number; line: number }>('SELECT seq, pg_column_size(e.*) AS row, octet_length(line) AS line FROM baton_events e WHERE seq IN (2, 4) ORDER BY seq');
      expect(sizes.map((s) => s.line)).toEqual([sizes[0]!.line, sizes[0]!.line]);
      // Two 64-character hex texts (65 bytes each on disk) are no longer in the row (give or take
      // the alignment padding of the columns around them).
      expect(sizes[0]!.row - sizes[1]!.row).toBeGreaterThanOrEqual(2 * 65 - 16);
    } finally {
      await store.close();
    }
  });

  it('still finds a tampered line on a row without prev and hash, and a tampered prev or hash where a row stores them', async () => {
    const workspace = newWorkspaceId('tamper');
    const db = await freshDatabase();
    const written = await writtenAtVersion3(db, workspace);
    const store = await openStore(db, workspace);
    const admin = await superuser(db);
    try {
      const next = await store.append([note('note/v4', 'new')]);
      expect(await store.verify()).toMatchObject({ ok: true, head_seq: 4 });

      // A new row's line edited in place (its text changed, its hash kept): the chain check fails there.
      const [stored] = await store.sql<{ line: string }>('SELECT line FROM baton_events WHERE seq = 4');
      const line = stored!.line;
      expect(line).toContain(next.events[0]!.hash);
      await admin.query('UPDATE baton_events SET line = $1 WHERE workspace_id = $2 AND seq = 4', [line.replace('new', 'NEW'), workspace]);
      const lineReport = await store.verify();
      expect(lineReport).toMatchObject({ ok: false, first_bad: { seq: 4 } });
      await admin.query('UPDATE baton_events SET line = $1 WHERE workspace_id = $2 AND seq = 4', [line, workspace]);
      expect((await store.verify()).ok).toBe(true);

      // An old row's stored prev or hash column edited: verify names the column.
      for (const column of ['prev', 'hash'] as const) {
        await admin.query(`UPDATE baton_events SET ${column} = $1 WHERE workspace_id = $2 AND seq = 2`, ['e'.repeat(64), workspace]);
        const report = await store.verify();
        expect(report).toMatchObject({ ok: false, first_bad: { seq: 2, reason: `column ${column} does not match the stored event (tampered)` } });
        await admin.query(`UPDATE baton_events SET ${column} = $1 WHERE workspace_id = $2 AND seq = 2`, [written[1]![column], workspace]);
      }
      expect(await store.verify()).toEqual({ ok: true, head_seq: 4, checked: 4, first_bad: null });
    } finally {
      await admin.end();
      await store.close();
    }
  });
});
