import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewEvent, StoredEvent } from '../../events/envelope.js';
import type { EventStore } from '../../src/store/contract.js';
import type { PostgresEventStore } from '../../src/store/postgres/postgres-store.js';
import { APP_ROLE, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { newWorkspaceId, openOn } from './postgres-harness.js';

let cluster: PostgresCluster;
let alpha: PostgresEventStore;
let beta: PostgresEventStore;
const alphaId = newWorkspaceId('alpha');
const betaId = newWorkspaceId('beta');

const note = (stream: string, text: string): NewEvent => ({ type: 'note.recorded', stream, data: { text } });

async function readAll(store: EventStore): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const event of store.read()) out.push(event);
  return out;
}

beforeAll(async () => {
  cluster = await startPostgresCluster();
  alpha = await openOn(cluster, alphaId);
  beta = await openOn(cluster, betaId);
  await alpha.append([note('note/shared', 'alpha one'), note('note/alpha', 'alpha two')], { idempotencyKey: 'same-key' });
  await alpha.append([note('note/shared', 'alpha three')]);
  await beta.append([note('note/shared', 'beta one')], { idempotencyKey: 'same-key' });
});

afterAll(async () => {
  await alpha?.close();
  await beta?.close();
  await cluster?.stop();
});

describe('postgres: tenancy by workspace_id, enforced by row-level security', () => {
  it('gives each workspace its own log: seq, head, stream versions and idempotency keys', async () => {
    const a = await readAll(alpha);
    const b = await readAll(beta);
    expect(a.map((e) => [e.seq, e.data['text']])).toEqual([
      [1, 'alpha one'],
      [2, 'alpha two'],
      [3, 'alpha three'],
    ]);
    expect(b.map((e) => [e.seq, e.data['text']])).toEqual([[1, 'beta one']]);
    expect((await alpha.head()).seq).toBe(3);
    expect((await beta.head()).seq).toBe(1);
    expect(await alpha.streamVersion('note/shared')).toBe(2);
    expect(await beta.streamVersion('note/shared')).toBe(1);
    expect(await beta.streamVersion('note/alpha')).toBe(0);
    expect((await beta.append([note('note/shared', 'beta one')], { idempotencyKey: 'same-key' })).deduplicated).toBe(true);
    expect((await alpha.verify()).ok).toBe(true);
    expect((await beta.verify()).ok).toBe(true);
  });

  it('shows a raw SQL query on the adapter connection only its own workspace rows, whatever it asks for', async () => {
    expect(await alpha.sql('SELECT DISTINCT workspace_id FROM baton_events')).toEqual([{ workspace_id: alphaId }]);
    expect(await beta.sql('SELECT DISTINCT workspace_id FROM baton_events')).toEqual([{ workspace_id: betaId }]);
    expect(await alpha.sql('SELECT count(*)::int AS n FROM baton_events WHERE workspace_id = $1', [betaId])).toEqual([{ n: 0 }]);
    expect(await alpha.sql('SELECT workspace_id FROM baton_heads')).toEqual([{ workspace_id: alphaId }]);
    expect(await alpha.sql('SELECT workspace_id, key FROM baton_idempotency')).toEqual([{ workspace_id: alphaId, key: 'same-key' }]);
    expect(await beta.sql("SELECT data->>'text' AS text FROM baton_events ORDER BY seq")).toEqual([{ text: 'beta one' }]);
  });

  it('refuses writes into another workspace through raw SQL, and changes none of its rows', async () => {
    const before = await readAll(beta);
    const insert = alpha.sql(
      `INSERT INTO baton_events (workspace_id, seq, id, type, stream, stream_version, at, actor, data, prev, hash, line)
       VALUES ($1, 99, 'x', 'note.recorded', 'note/x', 1, now(), 'system', '{}', $2, $2, '{}')`,
      [betaId, '0'.repeat(64)],
    );
    await expect(insert).rejects.toMatchObject({ code: '42501' }); // new row violates row-level security policy
    expect(await alpha.sql('UPDATE baton_events SET line = $1 WHERE workspace_id = $2 RETURNING seq', ['{}', betaId])).toEqual([]);
    expect(await alpha.sql('DELETE FROM baton_events WHERE workspace_id = $1 RETURNING seq', [betaId])).toEqual([]);
    expect(await alpha.sql('UPDATE baton_heads SET seq = 0 WHERE workspace_id = $1 RETURNING seq', [betaId])).toEqual([]);
    expect(await readAll(beta)).toEqual(before);
    expect((await beta.verify()).ok).toBe(true);
  });

  it('runs as a role that is neither superuser nor exempt from row-level security, on tables that force it', async () => {
    expect(await alpha.sql('SELECT current_user AS role, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user')).toEqual([
      { role: APP_ROLE, rolsuper: false, rolbypassrls: false },
    ]);
    const tables = await alpha.sql<{ relname: string; relrowsecurity: boolean; relforcerowsecurity: boolean }>(
      "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class WHERE relname IN ('baton_events', 'baton_heads', 'baton_idempotency') ORDER BY relname",
    );
    expect(tables).toEqual([
      { relname: 'baton_events', relrowsecurity: true, relforcerowsecurity: true },
      { relname: 'baton_heads', relrowsecurity: true, relforcerowsecurity: true },
      { relname: 'baton_idempotency', relrowsecurity: true, relforcerowsecurity: true },
    ]);
  });

  it('shows a connection that names no workspace nothing at all', async () => {
    const client = new pg.Client({ connectionString: cluster.appUrl });
    await client.connect();
    try {
      expect((await client.query('SELECT count(*)::int AS n FROM baton_events')).rows).toEqual([{ n: 0 }]);
      expect((await client.query('SELECT count(*)::int AS n FROM baton_heads')).rows).toEqual([{ n: 0 }]);
    } finally {
      await client.end();
    }
  });
});
