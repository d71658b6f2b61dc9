import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewEvent, StoredEvent } from '../../events/envelope.js';
import { GENESIS_HASH } from '../../events/patterns.js';
import type { AppendOptions } from '../../src/store/contract.js';
import { migrate } from '../../src/store/postgres/migrate.js';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, WORKSPACE_SETTING } from '../../src/store/postgres/migrations.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import {
  CALL_VERSION_3,
  freshDatabase,
  newWorkspaceId,
  openOnDatabase,
  sealForCall,
  superuserClient,
  version3Arguments,
  type CallHead,
  type SealedCall,
  unicodeNote,
} from './postgres-harness.js';

/**
 * Migration 4: appended rows stop carrying `prev` and `hash` beside the line that holds both. A
 * database at migration 3 with events migrates forward on first use; the events written before
 * keep their columns, still read, verify and deduplicate; the rows appended after carry neither
 * column, are that much smaller, extend the same chain, and `verify` still finds a tampered line
 * or a tampered column wherever one is stored. The unique index on ids is gone: the function
 * requires ids to ascend with seq instead, which keeps them distinct.
 */

let cluster: PostgresCluster;

beforeAll(async () => {
  cluster = await startPostgresCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

/** The batch built on `head`, as the adapter builds it before its call. */
const seal = (head: CallHead, events: NewEvent[], options: AppendOptions = {}): Promise<SealedCall> => sealForCall(head, events, options, 'v3-baton');

/** Append through migration 3's function, as a Baton of that version did: one call, one commit. */
async function appendThroughVersion3(
  client: pg.ClientBase,
  workspace: string,
  head: CallHead,
  events: NewEvent[],
  options: AppendOptions = {},
): Promise<StoredEvent[]> {
  const sealed = await seal(head, events, options);
  expect(await callAppend(client, workspace, head, sealed)).toBe('written');
  return sealed.plan.events;
}

/** One call of `baton_append` (migration 3's signature) with a sealed batch; its status. */
async function callAppend(client: pg.ClientBase, workspace: string, head: CallHead, sealed: SealedCall): Promise<string> {
  return (await client.query<{ status: string }>(CALL_VERSION_3, version3Arguments(workspace, head, sealed))).rows[0]!.status;
}

/** Migrations are per database: each scenario gets a database of its own, left at version 3 by the fixture. */
const freshV3Database = (): Promise<string> => freshDatabase(cluster, 'v3');

/** A workspace whose events were all written at schema version 3; returns them. */
async function writtenAtVersion3(databaseUrl: string, workspace: string): Promise<StoredEvent[]> {
  const pool = new pg.Pool({ connectionString: databaseUrl, options: `-c ${WORKSPACE_SETTING}=${workspace}`, max: 1 });
  try {
    const client = await pool.connect();
    try {
      await migrate(client, 3);
      expect((await client.query<{ version: number }>('SELECT max(version) AS version FROM baton_migrations')).rows).toEqual([{ version: 3 }]);
      const head = (): CallHead => ({ seq: written.length, hash: written.at(-1)?.hash ?? GENESIS_HASH, lastId: written.at(-1)?.id ?? '' });
      const written: StoredEvent[] = [];
      written.push(...(await appendThroughVersion3(client, workspace, head(), [unicodeNote('note/v3-a', 'one')])));
      written.push(
        ...(await appendThroughVersion3(client, workspace, head(), [unicodeNote('note/v3-a', 'two'), unicodeNote('note/v3-b', 'three')], {
          idempotencyKey: 'v3-key',
        })),
      );
      return written;
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
}

describe('postgres: migration 4 (rows leave prev and hash to their line)', () => {
  it('migrates a database at version 3 forward on first use: old events read, verify and deduplicate; new rows carry no prev or hash and extend the chain', async () => {
    expect(LATEST_SCHEMA_VERSION).toBeGreaterThanOrEqual(4);
    const workspace = newWorkspaceId('from-v3');
    const db = await freshV3Database();
    const written = await writtenAtVersion3(db, workspace);
    const store = await openOnDatabase(db, workspace);
    try {
      expect(await store.sql('SELECT version FROM baton_migrations ORDER BY version')).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
      const before: StoredEvent[] = [];
      for await (const event of store.read()) before.push(event);
      expect(before).toEqual(written);
      expect(await store.verify()).toEqual({ ok: true, head_seq: 3, checked: 3, first_bad: null });
      expect(await store.append([unicodeNote('note/v3-a', 'two'), unicodeNote('note/v3-b', 'three')], { idempotencyKey: 'v3-key' })).toEqual({
        events: written.slice(1),
        deduplicated: true,
      });

      const next = await store.append([unicodeNote('note/v3-b', 'four'), unicodeNote('note/v4-c', 'five')], {
        idempotencyKey: 'v4-key',
        expectedVersion: { 'note/v3-b': 1 },
      });
      expect(next.events.map((e) => e.seq)).toEqual([4, 5]);
      expect(next.events[0]!.prev).toBe(written[2]!.hash);
      const rows = await store.sql<{ seq: string; stream_version: number; prev: string | null; hash: string | null }>(
        'SELECT seq, stream_version, prev, hash FROM baton_events ORDER BY seq',
      );
      expect(rows).toEqual([
        ...written.map((e, i) => ({ seq: String(e.seq), stream_version: [1, 2, 1][i], prev: e.prev, hash: e.hash })),
        { seq: '4', stream_version: 2, prev: null, hash: null },
        { seq: '5', stream_version: 1, prev: null, hash: null },
      ]);
      expect(await store.head()).toEqual({ seq: 5, hash: next.events[1]!.hash });
      expect(await store.verify()).toEqual({ ok: true, head_seq: 5, checked: 5, first_bad: null });
      expect(await store.append([unicodeNote('note/v3-b', 'four'), unicodeNote('note/v4-c', 'five')], { idempotencyKey: 'v4-key' })).toEqual({
        events: next.events,
        deduplicated: true,
      });
      const after: StoredEvent[] = [];
      for await (const event of store.read()) after.push(event);
      expect(after).toEqual([...written, ...next.events]);
    } finally {
      await store.close();
    }
  });

  it('stores an appended event in fewer bytes than the same event written at version 3', async () => {
    const workspace = newWorkspaceId('bytes');
    const db = await freshV3Database();
    const written = await writtenAtVersion3(db, workspace);
    const store = await openOnDatabase(db, workspace, 'v4-baton');
    try {
      // Same stream, same text length as seq 2 (the batch of two): only the row's shape differs.
      const next = await store.append([unicodeNote('note/v3-a', 'TWO'), unicodeNote('note/v3-b', 'THREE')], { idempotencyKey: 'v4-key' });
      expect(Buffer.byteLength(next.events[0]!.id)).toBe(Buffer.byteLength(written[1]!.id));
      const sizes = await store.sql<{ seq: string; row: number; line: number }>(
        'SELECT seq, pg_column_size(e.*) AS row, octet_length(line) AS line FROM baton_events e WHERE seq IN (2, 4) ORDER BY seq',
      );
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
    const db = await freshV3Database();
    const written = await writtenAtVersion3(db, workspace);
    const store = await openOnDatabase(db, workspace);
    const admin = await superuserClient(db);
    try {
      const next = await store.append([unicodeNote('note/v4', 'new')]);
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

  it('keeps no index on ids: it refuses a batch whose ids do not ascend from the head (nothing written), and lets one follow an imported non-ULID id', async () => {
    const db = await freshV3Database();
    const workspace = newWorkspaceId('ids');
    const store = await openOnDatabase(db, workspace);
    const client = new pg.Client({ connectionString: db, options: `-c ${WORKSPACE_SETTING}=${workspace}` });
    await client.connect();
    const admin = await superuserClient(db);
    try {
      await store.head(); // migrates the fresh database
      const idIndexes = await admin.query("SELECT indexdef FROM pg_indexes WHERE tablename = 'baton_events' AND indexdef LIKE '%(workspace_id, id)%'");
      expect(idIndexes.rows).toEqual([]);

      // A writer whose ids run far ahead (derived from a late ULID) leaves its last id on the head.
      const ahead = await seal({ seq: 0, hash: GENESIS_HASH, lastId: '7ZZZZZZZZZZZZZZZZZZZZZZZZX' }, [
        unicodeNote('note/ids', 'one'),
        unicodeNote('note/ids', 'two'),
      ]);
      expect(await callAppend(client, workspace, { seq: 0, hash: GENESIS_HASH, lastId: '' }, ahead)).toBe('written');
      const head: CallHead = { seq: 2, hash: ahead.plan.events[1]!.hash, lastId: ahead.plan.events[1]!.id };
      expect(head.lastId).toBe('7ZZZZZZZZZZZZZZZZZZZZZZZZZ');

      // A batch built on that head's seq and hash but not after its last id: refused, nothing written.
      const behind = await seal({ ...head, lastId: '' }, [unicodeNote('note/ids', 'behind')]);
      expect(behind.plan.events[0]!.id < head.lastId).toBe(true);
      await expect(callAppend(client, workspace, head, behind)).rejects.toThrow(/ids must ascend/);
      expect(await store.head()).toEqual({ seq: 2, hash: head.hash });
      expect(await store.sql('SELECT count(*)::int AS n FROM baton_events')).toEqual([{ n: 2 }]);

      // Built after the head's last id (as the adapter builds it), the same event is written.
      const after = await seal(head, [unicodeNote('note/ids', 'behind')]);
      expect(after.plan.events[0]!.id > head.lastId).toBe(true);
      expect(await callAppend(client, workspace, head, after)).toBe('written');

      // A head whose last id is not a ULID (a log imported from another tool) takes any ULID after it.
      await admin.query('UPDATE baton_heads SET last_id = $1 WHERE workspace_id = $2', ['zz-imported-id', workspace]);
      const imported: CallHead = { seq: 3, hash: after.plan.events[0]!.hash, lastId: '' };
      const next = await seal(imported, [unicodeNote('note/ids', 'after an import')]);
      expect(next.plan.events[0]!.id < 'zz-imported-id').toBe(true);
      expect(await callAppend(client, workspace, imported, next)).toBe('written');
      expect(await store.verify()).toEqual({ ok: true, head_seq: 4, checked: 4, first_bad: null });
    } finally {
      await admin.end();
      await client.end();
      await store.close();
    }
  });
});
