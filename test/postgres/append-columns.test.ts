import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewEvent, StoredEvent } from '../../events/envelope.js';
import { createCatalog } from '../../events/index.js';
import { GENESIS_HASH } from '../../events/patterns.js';
import { emptySealedColumns, sealBatch, validateBatch } from '../../src/store/append-plan.js';
import type { AppendOptions } from '../../src/store/contract.js';
import { migrate } from '../../src/store/postgres/migrate.js';
import { MIGRATIONS, WORKSPACE_SETTING } from '../../src/store/postgres/migrations.js';
import { expectedVersionArgument } from '../../src/store/postgres/append-arguments.js';
import { channelFor } from '../../src/store/postgres/notification-hub.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { CALL_VERSION_3, newWorkspaceId, openOn, version3Arguments } from './postgres-harness.js';

/**
 * Migration 3: `baton_append` takes each event's columns beside its line and stores a row only when
 * the line is exactly the canonical envelope of those columns. A database whose events were
 * written through migration 2's function migrates forward, and those events still read and verify.
 */

let cluster: PostgresCluster;

beforeAll(async () => {
  cluster = await startPostgresCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

const catalog = createCatalog();
const note = (stream: string, text: string, actor?: string): NewEvent => ({
  type: 'note.recorded',
  stream,
  data: { text: `${text} — ünïcødé "quoted" \\ ✓` },
  ...(actor !== undefined ? { actor } : {}),
});

async function appConnection(workspace: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: cluster.appUrl, options: `-c ${WORKSPACE_SETTING}=${workspace}` });
  await client.connect();
  return client;
}

type Head = { seq: number; hash: string; lastId: string };

/** Call migration 2's function as the adapter of that version did: the lines only. */
async function appendThroughVersion2(
  client: pg.Client,
  workspace: string,
  head: Head,
  events: NewEvent[],
  options: AppendOptions = {},
): Promise<StoredEvent[]> {
  const batch = await validateBatch(catalog, events, options);
  const plan = sealBatch(batch, head, { now: () => '2025-03-04T05:06:07.000Z', defaultActor: 'v2-baton', lastId: head.lastId || undefined });
  const streams = [...batch.expected.keys()];
  const versions = [...batch.expected.values()].map(expectedVersionArgument);
  const row = (
    await client.query<{ status: string }>('SELECT status FROM baton_append($1, $2, $3, $4, $5, $6, $7, $8, $9)', [
      workspace,
      head.seq,
      head.hash,
      batch.idempotencyKey ?? null,
      batch.digest,
      streams,
      versions,
      plan.bytes.toString('utf8', 0, plan.bytes.length - 1),
      channelFor(workspace),
    ])
  ).rows[0]!;
  expect(row.status).toBe('written');
  return plan.events;
}

/** The 16 arguments of migration 3's function for `events` on `head`, with `tamper` applied to the columns. */
async function version3ArgumentsFor(
  workspace: string,
  head: Head,
  events: NewEvent[],
  tamper: (columns: ReturnType<typeof emptySealedColumns>) => void,
): Promise<{ args: unknown[]; sealed: StoredEvent[] }> {
  const batch = await validateBatch(catalog, events);
  const columns = emptySealedColumns();
  const plan = sealBatch(batch, head, { now: () => '2025-03-04T05:06:07.000Z', defaultActor: 'tester', lastId: head.lastId || undefined }, columns);
  tamper(columns);
  return { sealed: plan.events, args: version3Arguments(workspace, head, { batch, columns, plan }) };
}

describe('postgres: baton_append of migration 3', () => {
  it('migrates a database written through migration 2 forward: old events read, verify and deduplicate, new ones extend the chain', async () => {
    const workspace = newWorkspaceId('from-v2');
    const pool = new pg.Pool({ connectionString: cluster.appUrl, options: `-c ${WORKSPACE_SETTING}=${workspace}`, max: 1 });
    try {
      const pc = await pool.connect();
      try {
        expect(await migrate(pc, 2)).toEqual({ from: 0, to: 2 });
      } finally {
        pc.release();
      }
    } finally {
      await pool.end();
    }
    const client = await appConnection(workspace);
    let written: StoredEvent[];
    try {
      const first = await appendThroughVersion2(client, workspace, { seq: 0, hash: GENESIS_HASH, lastId: '' }, [
        note('note/v2-a', 'one'),
        note('note/v2-a', 'two'),
      ]);
      const lastFirst = first.at(-1)!;
      const second = await appendThroughVersion2(
        client,
        workspace,
        { seq: lastFirst.seq, hash: lastFirst.hash, lastId: lastFirst.id },
        [note('note/v2-b', 'three')],
        {
          idempotencyKey: 'v2-key',
        },
      );
      written = [...first, ...second];
    } finally {
      await client.end();
    }

    const store = await openOn(cluster, workspace);
    try {
      expect(await store.sql('SELECT version FROM baton_migrations ORDER BY version')).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
      const before: StoredEvent[] = [];
      for await (const event of store.read()) before.push(event);
      expect(before).toEqual(written);
      expect(await store.verify()).toEqual({ ok: true, head_seq: 3, checked: 3, first_bad: null });
      expect(await store.append([note('note/v2-b', 'three')], { idempotencyKey: 'v2-key' })).toEqual({ events: written.slice(2), deduplicated: true });

      // Through migration 3's function: an actor that needs JSON escaping, several streams, a key.
      const next = await store.append([note('note/v2-a', 'four', 'agent "x"\nline two'), note('note/v3-c', 'five')], {
        idempotencyKey: 'v3-key',
        expectedVersion: { 'note/v2-a': 2 },
      });
      expect(next.events.map((e) => [e.seq, e.actor])).toEqual([
        [4, 'agent "x"\nline two'],
        [5, next.events[1]!.actor],
      ]);
      expect(next.events[0]!.prev).toBe(written[2]!.hash);
      const rows = await store.sql<{ seq: string; stream_version: number; actor: string; idempotency_key: string | null; batch_end: string | null }>(
        'SELECT seq, stream_version, actor, idempotency_key, batch_end FROM baton_events WHERE seq >= 4 ORDER BY seq',
      );
      expect(rows).toEqual([
        { seq: '4', stream_version: 3, actor: 'agent "x"\nline two', idempotency_key: 'v3-key', batch_end: '5' },
        { seq: '5', stream_version: 1, actor: next.events[1]!.actor, idempotency_key: 'v3-key', batch_end: '5' },
      ]);
      expect(await store.verify()).toEqual({ ok: true, head_seq: 5, checked: 5, first_bad: null });
    } finally {
      await store.close();
    }
  });

  it('writes nothing when a column disagrees with its line (data, hash, stream or actor)', async () => {
    const workspace = newWorkspaceId('tamper');
    const store = await openOn(cluster, workspace);
    const client = await appConnection(workspace);
    try {
      const kept = await store.append([note('note/kept', 'before')]);
      const head = { seq: 1, hash: kept.events[0]!.hash, lastId: kept.events[0]!.id };
      const events = [note('note/t', 'a'), note('note/t', 'b'), note('note/t', 'c')];
      const tampers: ((c: ReturnType<typeof emptySealedColumns>) => void)[] = [
        (c) => (c.dataJson[1] = '{"text":"something else"}'),
        (c) => (c.hashes[2] = 'f'.repeat(64)),
        (c) => (c.streams[0] = 'note/elsewhere'),
        (c) => (c.actorsJson[1] = '"someone else"'),
      ];
      for (const tamper of tampers) {
        const { args } = await version3ArgumentsFor(workspace, head, events, tamper);
        await expect(client.query(CALL_VERSION_3, args)).rejects.toThrow(/do not match their columns/);
      }
      expect(await store.head()).toEqual({ seq: 1, hash: head.hash });
      expect(await store.sql('SELECT count(*)::int AS n FROM baton_events')).toEqual([{ n: 1 }]);

      // The same batch untampered is stored, and the log verifies.
      const { args, sealed } = await version3ArgumentsFor(workspace, head, events, () => undefined);
      expect((await client.query<{ status: string }>(CALL_VERSION_3, args)).rows[0]!.status).toBe('written');
      const log: StoredEvent[] = [];
      for await (const event of store.read()) log.push(event);
      expect(log.slice(1)).toEqual(sealed);
      expect(await store.verify()).toEqual({ ok: true, head_seq: 4, checked: 4, first_bad: null });
    } finally {
      await client.end();
      await store.close();
    }
  });
});
