import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { newWorkspaceId, openOn } from './postgres-harness.js';

let cluster: PostgresCluster;

beforeAll(async () => {
  cluster = await startPostgresCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

describe('postgres: versioned migrations', () => {
  it('applies each migration exactly once when many stores open a fresh database at the same time', async () => {
    const stores = await Promise.all(Array.from({ length: 6 }, () => openOn(cluster, newWorkspaceId('migrate'))));
    try {
      const rows = await stores[0]!.sql<{ version: number; name: string }>('SELECT version, name FROM baton_migrations ORDER BY version');
      expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
      expect(rows.at(-1)!.version).toBe(LATEST_SCHEMA_VERSION);
      // Reopening a current schema changes nothing.
      const again = await openOn(cluster, newWorkspaceId('migrate'));
      await again.close();
      expect(await stores[1]!.sql('SELECT count(*)::int AS n FROM baton_migrations')).toEqual([{ n: MIGRATIONS.length }]);
    } finally {
      for (const store of stores) await store.close();
    }
  });

  it('refuses a database migrated by a newer Baton with STORE_UNAVAILABLE, writing nothing', async () => {
    const admin = new pg.Client({ connectionString: cluster.superuserUrl });
    await admin.connect();
    try {
      await admin.query("INSERT INTO baton_migrations (version, name) VALUES ($1, 'from the future')", [LATEST_SCHEMA_VERSION + 1]);
      await expect(openOn(cluster, newWorkspaceId('future'))).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
        message: expect.stringContaining('upgrade Baton'),
      });
    } finally {
      await admin.query('DELETE FROM baton_migrations WHERE version > $1', [LATEST_SCHEMA_VERSION]);
      await admin.end();
    }
  });
});
