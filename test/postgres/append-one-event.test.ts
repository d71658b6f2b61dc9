import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewEvent, StoredEvent } from '../../events/envelope.js';
import { GENESIS_HASH } from '../../events/patterns.js';
import type { AppendOptions } from '../../src/store/contract.js';
import { oneEventAppendArguments } from '../../src/store/postgres/append-arguments.js';
import { migrate } from '../../src/store/postgres/migrate.js';
import { MIGRATIONS, WORKSPACE_SETTING } from '../../src/store/postgres/migrations.js';
import { channelFor } from '../../src/store/postgres/notification-hub.js';
import type { PostgresEventStore } from '../../src/store/postgres/postgres-store.js';
import { APP_ROLE, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
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
 * Migration 5: a single event is appended through the one-event form of `baton_append` (scalars,
 * reads before the head lock, one conditional head UPDATE, one INSERT), and anything but the plain
 * case is handed to the batch form. These tests hold the two forms to the same rows, the same
 * chain and the same refusals, show that a plain single append needs nothing of the batch form,
 * that a backend killed inside the one-event form leaves nothing behind, and that a database at
 * migration 4 migrates forward with its events still verifying.
 */

let cluster: PostgresCluster;

beforeAll(async () => {
  cluster = await startPostgresCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

const seal = (head: CallHead, events: NewEvent[], options: AppendOptions = {}): Promise<SealedCall> => sealForCall(head, events, options);

/** The one-event form's 15 arguments, in its order. */
const CALL_ONE = 'SELECT status FROM baton_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)';

/** The one-event form's arguments for a sealed single event, as the adapter passes them. */
function oneEventArguments(workspace: string, head: CallHead, { batch, columns, plan }: SealedCall): unknown[] {
  return oneEventAppendArguments(workspace, channelFor(workspace), head, batch, plan.bytes, columns);
}

async function appConnection(databaseUrl: string, workspace: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl, options: `-c ${WORKSPACE_SETTING}=${workspace}` });
  await client.connect();
  return client;
}

/** Bring a database's schema to `version` (the latest when absent), as a Baton of that version would. */
async function migrateTo(databaseUrl: string, version?: number): Promise<void> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const client = await pool.connect();
    try {
      await migrate(client, version);
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
}

async function readAll(store: PostgresEventStore): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const event of store.read()) out.push(event);
  return out;
}

/** Every stored column of a workspace's rows but the workspace and the writing transaction. */
async function rowsOf(client: pg.Client, workspace: string): Promise<Record<string, unknown>[]> {
  const rows = await client.query(
    `SELECT seq, id, type, stream, stream_version, at, actor, data, idempotency_key, batch_end, prev, hash, line
     FROM baton_events WHERE workspace_id = $1 ORDER BY seq`,
    [workspace],
  );
  return rows.rows;
}

describe('postgres: the one-event form of baton_append (migration 5)', () => {
  it('stores exactly the rows, head and key the batch form stores for the same events, and both verify', async () => {
    const db = await freshDatabase(cluster, 'same');
    const [one, batch] = [newWorkspaceId('one'), newWorkspaceId('batch')];
    const oneClient = await appConnection(db, one);
    const batchClient = await appConnection(db, batch);
    const su = await superuserClient(db);
    try {
      await migrateTo(db);
      // The same sealed events (ids, times, hashes) sent through each form, one call per event.
      const plans: [NewEvent, AppendOptions][] = [
        [unicodeNote('note/a', 'first'), { expectedVersion: 'no_stream' }],
        [unicodeNote('note/a', 'second'), { expectedVersion: 1, idempotencyKey: 'key-2' }],
        [unicodeNote('note/b', 'third'), {}],
        [{ ...unicodeNote('note/b', 'fourth'), actor: 'someone "else"' }, { expectedVersion: 'stream_exists' }],
        [unicodeNote('note/a', 'fifth'), { idempotencyKey: 'key-5' }],
      ];
      let head: CallHead = { seq: 0, hash: GENESIS_HASH, lastId: '' };
      for (const [event, options] of plans) {
        const sealed = await seal(head, [event], options);
        expect((await oneClient.query<{ status: string }>(CALL_ONE, oneEventArguments(one, head, sealed))).rows[0]!.status).toBe('written');
        expect((await batchClient.query<{ status: string }>(CALL_VERSION_3, version3Arguments(batch, head, sealed))).rows[0]!.status).toBe('written');
        const stored = sealed.plan.events[0]!;
        head = { seq: stored.seq, hash: stored.hash, lastId: stored.id };
      }
      const oneRows = await rowsOf(su, one);
      expect(oneRows).toHaveLength(5);
      expect(oneRows).toEqual(await rowsOf(su, batch));
      expect(oneRows.map((r) => r['stream_version'])).toEqual([1, 2, 1, 2, 3]);
      expect(oneRows[3]!['actor']).toBe('someone "else"');
      const heads = await su.query('SELECT workspace_id, seq, hash, last_id FROM baton_heads WHERE workspace_id = ANY($1) ORDER BY workspace_id = $2', [
        [one, batch],
        one,
      ]);
      expect(heads.rows.map(({ workspace_id: _ws, ...rest }) => rest)).toEqual([
        { seq: '5', hash: head.hash, last_id: head.lastId },
        { seq: '5', hash: head.hash, last_id: head.lastId },
      ]);
      const keys = await su.query(
        'SELECT workspace_id = $1 AS one, key, digest, first_seq, last_seq FROM baton_idempotency WHERE workspace_id = ANY($2) ORDER BY key, 1',
        [one, [one, batch]],
      );
      expect(keys.rows.map(({ one: _one, ...rest }) => rest)).toEqual([
        { key: 'key-2', digest: expect.any(String), first_seq: '2', last_seq: '2' },
        { key: 'key-2', digest: expect.any(String), first_seq: '2', last_seq: '2' },
        { key: 'key-5', digest: expect.any(String), first_seq: '5', last_seq: '5' },
        { key: 'key-5', digest: expect.any(String), first_seq: '5', last_seq: '5' },
      ]);
      for (const workspace of [one, batch]) {
        const store = await openOnDatabase(db, workspace, 'tester');
        try {
          expect(await store.verify()).toEqual({ ok: true, head_seq: 5, checked: 5, first_bad: null });
        } finally {
          await store.close();
        }
      }
    } finally {
      await su.end();
      await oneClient.end();
      await batchClient.end();
    }
  });

  it('answers as the batch form when the plain case does not hold: used key, other version, moved head, ids out of order, a line that is not its columns', async () => {
    const db = await freshDatabase(cluster, 'answers');
    const workspace = newWorkspaceId('answers');
    const client = await appConnection(db, workspace);
    const store = await openOnDatabase(db, workspace, 'tester');
    try {
      await store.head(); // migrates the fresh database
      const call = async (head: CallHead, sealed: SealedCall, edit: (args: unknown[]) => void = () => undefined) => {
        const args = oneEventArguments(workspace, head, sealed);
        edit(args);
        return (
          await client.query<{
            status: string;
            head_seq: string | null;
            lines: string[] | null;
            conflict_stream: string | null;
            conflict_actual: number | null;
          }>(CALL_ONE.replace('SELECT status', 'SELECT status, head_seq, lines, conflict_stream, conflict_actual'), args)
        ).rows[0]!;
      };
      const genesis: CallHead = { seq: 0, hash: GENESIS_HASH, lastId: '' };
      const first = await seal(genesis, [unicodeNote('note/x', 'one')], { idempotencyKey: 'k1' });
      // The first append of a workspace has no head row yet: the batch form creates it.
      expect((await call(genesis, first)).status).toBe('written');
      const e1 = first.plan.events[0]!;
      const head: CallHead = { seq: 1, hash: e1.hash, lastId: e1.id };

      // A used key with the same content: the events stored the first time.
      const again = await call(genesis, await seal(genesis, [unicodeNote('note/x', 'one')], { idempotencyKey: 'k1' }));
      expect(again).toMatchObject({ status: 'deduplicated', lines: [JSON.stringify(e1)] });
      // A used key with other content.
      expect((await call(head, await seal(head, [unicodeNote('note/x', 'other')], { idempotencyKey: 'k1' }))).status).toBe('idempotency_conflict');
      // Another version than expected.
      expect(await call(head, await seal(head, [unicodeNote('note/x', 'two')], { expectedVersion: 5 }))).toMatchObject({
        status: 'conflict',
        conflict_stream: 'note/x',
        conflict_actual: 1,
      });
      expect(await call(head, await seal(head, [unicodeNote('note/y', 'two')], { expectedVersion: 'stream_exists' }))).toMatchObject({
        status: 'conflict',
        conflict_stream: 'note/y',
        conflict_actual: 0,
      });
      // Built on a head that has moved since: the current head, nothing written.
      expect(await call(genesis, await seal(genesis, [unicodeNote('note/x', 'stale')]))).toMatchObject({ status: 'moved', head_seq: '1' });
      // An id that does not sort after the head's last id (a writer whose ids ran ahead left it): refused.
      const su = await superuserClient(db);
      try {
        await su.query('UPDATE baton_heads SET last_id = $1 WHERE workspace_id = $2', ['7ZZZZZZZZZZZZZZZZZZZZZZZZZ', workspace]);
        await expect(call(head, await seal(head, [unicodeNote('note/x', 'early id')]))).rejects.toThrow(/ids must ascend/);
        await su.query('UPDATE baton_heads SET last_id = $1 WHERE workspace_id = $2', [e1.id, workspace]);
      } finally {
        await su.end();
      }
      // A line that is not exactly its columns: refused.
      await expect(
        call(head, await seal(head, [unicodeNote('note/x', 'tampered')]), (args) => (args[6] = String(args[6]).replace('tampered', 'TAMPERED'))),
      ).rejects.toThrow(/line does not match its columns/);

      expect(await store.head()).toEqual({ seq: 1, hash: e1.hash });
      expect(await readAll(store)).toEqual([e1]);
      expect(await store.sql('SELECT count(*)::int AS n FROM baton_idempotency')).toEqual([{ n: 1 }]);
      expect(await store.verify()).toEqual({ ok: true, head_seq: 1, checked: 1, first_bad: null });
    } finally {
      await store.close();
      await client.end();
    }
  });

  it('appends a plain single event with the one-event form alone: the batch form is not called', async () => {
    const db = await freshDatabase(cluster, 'alone');
    const workspace = newWorkspaceId('alone');
    const store = await openOnDatabase(db, workspace, 'tester');
    const su = await superuserClient(db);
    try {
      // The first append creates the head row (through the batch form); after it, the batch form is
      // taken away from the app role: plain single appends still succeed, a batch cannot.
      const first = await store.append([unicodeNote('note/alone', 'one')], { expectedVersion: 'no_stream' });
      const batchForm = 'baton_append(text, bigint, text, text, text, text[], integer[], text, text, text, text, text, text, text, text, text)';
      await su.query(`REVOKE EXECUTE ON FUNCTION ${batchForm} FROM PUBLIC, ${APP_ROLE}`);
      const singles: StoredEvent[] = [...first.events];
      for (let i = 2; i <= 6; i++) {
        const result = await store.append([unicodeNote(`note/alone-${i % 2}`, `event ${i}`)], { idempotencyKey: `alone-${i}` });
        expect(result.deduplicated).toBe(false);
        singles.push(...result.events);
      }
      await expect(store.append([unicodeNote('note/alone', 'a'), unicodeNote('note/alone', 'b')])).rejects.toThrow(/permission denied/);
      // A retried key is not the plain case: it needs the batch form.
      await expect(store.append([unicodeNote('note/alone-0', 'event 2')], { idempotencyKey: 'alone-2' })).rejects.toThrow(/permission denied/);
      await su.query(`GRANT EXECUTE ON FUNCTION ${batchForm} TO ${APP_ROLE}`);
      expect(await store.append([unicodeNote('note/alone-0', 'event 2')], { idempotencyKey: 'alone-2' })).toEqual({ events: [singles[1]], deduplicated: true });
      expect(await readAll(store)).toEqual(singles);
      expect(singles.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(await store.verify()).toEqual({ ok: true, head_seq: 6, checked: 6, first_bad: null });
    } finally {
      await su.end();
      await store.close();
    }
  });

  it('decides a single event with expected versions for other streams (the batch form) as the contract says', async () => {
    const db = await freshDatabase(cluster, 'others');
    const workspace = newWorkspaceId('others');
    const store = await openOnDatabase(db, workspace, 'tester');
    try {
      await store.append([unicodeNote('note/other', 'one')]);
      await expect(store.append([unicodeNote('note/mine', 'refused')], { expectedVersion: { 'note/other': 0 } })).rejects.toMatchObject({
        code: 'CONFLICT',
        details: { stream: 'note/other', expected: 0, actual: 1 },
      });
      await expect(
        store.append([unicodeNote('note/mine', 'refused')], { expectedVersion: { 'note/mine': 'no_stream', 'note/other': 'no_stream' } }),
      ).rejects.toMatchObject({
        code: 'CONFLICT',
        details: { stream: 'note/other' },
      });
      const written = await store.append([unicodeNote('note/mine', 'two')], { expectedVersion: { 'note/other': 1, 'note/mine': 'no_stream' } });
      expect(written.events.map((e) => [e.seq, e.stream])).toEqual([[2, 'note/mine']]);
      expect(await store.streamVersion('note/mine')).toBe(1);
      expect(await store.verify()).toEqual({ ok: true, head_seq: 2, checked: 2, first_bad: null });
    } finally {
      await store.close();
    }
  });

  it('cannot write into another workspace: a connection confined to one is refused (row-level security) and the other log is unchanged', async () => {
    const db = await freshDatabase(cluster, 'tenancy');
    const [mine, theirs] = [newWorkspaceId('mine'), newWorkspaceId('theirs')];
    const store = await openOnDatabase(db, theirs, 'tester');
    const intruder = await appConnection(db, mine);
    try {
      const written = await store.append([unicodeNote('note/theirs', 'one')]);
      const e1 = written.events[0]!;
      // Their head exactly as it is (seq, hash, last id), the event built on it as their adapter would.
      const head: CallHead = { seq: 1, hash: e1.hash, lastId: e1.id };
      const sealed = await seal(head, [unicodeNote('note/theirs', 'forged')], { expectedVersion: 1 });
      await expect(intruder.query(CALL_ONE, oneEventArguments(theirs, head, sealed))).rejects.toMatchObject({ code: '42501' });
      expect(await readAll(store)).toEqual(written.events);
      expect(await store.head()).toEqual({ seq: 1, hash: e1.hash });
      expect(await store.verify()).toEqual({ ok: true, head_seq: 1, checked: 1, first_bad: null });
      expect((await intruder.query('SELECT count(*)::int AS n FROM baton_events')).rows).toEqual([{ n: 0 }]);
    } finally {
      await intruder.end();
      await store.close();
    }
  });

  it('leaves nothing half-written when its backend is killed between its steps (row and head written, key not yet)', async () => {
    const db = await freshDatabase(cluster, 'killed');
    const workspace = newWorkspaceId('killed');
    const store = await openOnDatabase(db, workspace, 'tester');
    const su = await superuserClient(db);
    const blocker = await appConnection(db, workspace);
    try {
      await store.append([unicodeNote('note/kept', 'one')]);
      const before = await readAll(store);
      const headBefore = await store.head();
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE baton_idempotency IN EXCLUSIVE MODE');
      const doomed = store.append([unicodeNote('note/doomed', 'single')], { idempotencyKey: 'doomed-single', expectedVersion: 'no_stream' }).then(
        () => 'written',
        (error: unknown) => error,
      );
      const deadline = Date.now() + 10_000;
      let backend: { pid: number; wrote: boolean; query: string } | undefined;
      while (!backend) {
        const rows = await su.query<{ pid: number; wrote: boolean; query: string }>(
          `SELECT pid, backend_xid IS NOT NULL AS wrote, query FROM pg_stat_activity
           WHERE wait_event_type = 'Lock' AND query LIKE '%baton_append(%' ORDER BY pid`,
        );
        backend = rows.rows[0];
        if (!backend && Date.now() > deadline) throw new Error('timed out waiting for the append to stop inside baton_append');
        if (!backend) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // The one-event form (15 arguments) has written its row and moved the head (its transaction
      // holds an xid) and waits to record the key.
      expect(backend.query).toMatch(/baton_append\(\$1, .*\$15\)$/);
      expect(backend.wrote).toBe(true);
      const locks = await su.query<{ relation: string }>(
        `SELECT c.relname AS relation FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
         WHERE l.pid = $1 AND l.mode = 'RowExclusiveLock' AND c.relname IN ('baton_events', 'baton_heads') ORDER BY 1`,
        [backend.pid],
      );
      expect(locks.rows.map((r) => r.relation)).toEqual(['baton_events', 'baton_heads']);
      await su.query('SELECT pg_terminate_backend($1)', [backend.pid]);
      expect(await doomed).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await blocker.query('ROLLBACK');

      expect(await store.head()).toEqual(headBefore);
      expect(await readAll(store)).toEqual(before);
      expect(await store.sql('SELECT count(*)::int AS n FROM baton_idempotency')).toEqual([{ n: 0 }]);
      const again = await store.append([unicodeNote('note/doomed', 'single')], { idempotencyKey: 'doomed-single', expectedVersion: 'no_stream' });
      expect(again.deduplicated).toBe(false);
      expect(again.events.map((e) => [e.seq, e.prev])).toEqual([[2, headBefore.hash]]);
      expect(await store.verify()).toEqual({ ok: true, head_seq: 2, checked: 2, first_bad: null });
    } finally {
      await blocker.end();
      await su.end();
      await store.close();
    }
  });

  it('migrates a database at migration 4 forward on first use: its events still read, verify and deduplicate, and single appends extend the chain', async () => {
    const db = await freshDatabase(cluster, 'v4');
    const workspace = newWorkspaceId('from-v4');
    const client = await appConnection(db, workspace);
    const written: StoredEvent[] = [];
    try {
      await migrateTo(db, 4);
      expect((await client.query('SELECT count(*)::int AS n FROM pg_proc WHERE proname = $1', ['baton_append'])).rows).toEqual([{ n: 1 }]);
      // Written as a Baton of migration 4 wrote them: every append, single or not, through the batch form.
      const head = (): CallHead => ({ seq: written.length, hash: written.at(-1)?.hash ?? GENESIS_HASH, lastId: written.at(-1)?.id ?? '' });
      for (const [events, options] of [
        [[unicodeNote('note/v4-a', 'one')], { expectedVersion: 'no_stream' }],
        [[unicodeNote('note/v4-a', 'two')], { idempotencyKey: 'v4-single' }],
        [[unicodeNote('note/v4-b', 'three'), unicodeNote('note/v4-a', 'four')], { idempotencyKey: 'v4-batch' }],
      ] as [NewEvent[], AppendOptions][]) {
        const sealed = await seal(head(), events, options);
        expect((await client.query<{ status: string }>(CALL_VERSION_3, version3Arguments(workspace, head(), sealed))).rows[0]!.status).toBe('written');
        written.push(...sealed.plan.events);
      }
    } finally {
      await client.end();
    }
    const store = await openOnDatabase(db, workspace, 'tester');
    try {
      expect(await store.sql('SELECT version FROM baton_migrations ORDER BY version')).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
      expect(await store.sql('SELECT count(*)::int AS n FROM pg_proc WHERE proname = $1', ['baton_append'])).toEqual([{ n: 2 }]);
      expect(await readAll(store)).toEqual(written);
      expect(await store.verify()).toEqual({ ok: true, head_seq: 4, checked: 4, first_bad: null });
      expect(await store.append([unicodeNote('note/v4-a', 'two')], { idempotencyKey: 'v4-single' })).toEqual({ events: [written[1]], deduplicated: true });

      const next = await store.append([unicodeNote('note/v4-a', 'five')], { expectedVersion: 3, idempotencyKey: 'v5-single' });
      expect(next.events.map((e) => [e.seq, e.prev])).toEqual([[5, written[3]!.hash]]);
      const rows = await store.sql<{ seq: string; stream_version: number; batch_end: string | null; prev: string | null }>(
        'SELECT seq, stream_version, batch_end, prev FROM baton_events WHERE seq >= 4 ORDER BY seq',
      );
      expect(rows).toEqual([
        { seq: '4', stream_version: 3, batch_end: '4', prev: null },
        { seq: '5', stream_version: 4, batch_end: null, prev: null },
      ]);
      expect(await store.append([unicodeNote('note/v4-a', 'five')], { idempotencyKey: 'v5-single' })).toEqual({ events: next.events, deduplicated: true });
      expect(await readAll(store)).toEqual([...written, ...next.events]);
      expect(await store.verify()).toEqual({ ok: true, head_seq: 5, checked: 5, first_bad: null });
    } finally {
      await store.close();
    }
  });
});
