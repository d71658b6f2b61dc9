import type { PoolClient } from 'pg';
import { BatonError, ErrorCode } from '../../errors.js';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from './migrations.js';

/**
 * Brings the database's schema up to this build's migrations. The usual case — already current —
 * costs one query. Otherwise every pending migration is applied in one transaction under an
 * advisory lock, so several processes opening a fresh database at once apply each migration
 * exactly once, and a failed migration leaves the schema as it was.
 */

/** Advisory lock key for schema changes ('baton' in ASCII). */
const MIGRATION_LOCK_KEY = '422827134830';

const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS baton_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/** The highest applied version, 0 when the schema was never created. */
async function appliedVersion(client: PoolClient): Promise<number> {
  try {
    const result = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM baton_migrations');
    return result.rows[0]?.version ?? 0;
  } catch (error) {
    if ((error as { code?: unknown }).code === '42P01') return 0; // undefined_table
    throw error;
  }
}

/**
 * `upTo` stops at an older version; only tests use it, to build a database as an earlier Baton
 * left it and prove that this one migrates it forward.
 */
export async function migrate(client: PoolClient, upTo: number = LATEST_SCHEMA_VERSION): Promise<{ from: number; to: number }> {
  const from = await appliedVersion(client);
  if (from > LATEST_SCHEMA_VERSION) {
    throw new BatonError(
      ErrorCode.STORE_UNAVAILABLE,
      `the database schema is at version ${from}, newer than this Baton knows (${LATEST_SCHEMA_VERSION}); upgrade Baton. Nothing was written`,
      { kind: 'postgres', schema_version: from },
    );
  }
  if (from >= upTo) return { from, to: from };
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    await client.query(CREATE_MIGRATIONS_TABLE);
    // Read again under the lock: another process may have migrated while this one waited.
    const applied = new Set((await client.query<{ version: number }>('SELECT version FROM baton_migrations')).rows.map((r) => r.version));
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version) || migration.version > upTo) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO baton_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return { from, to: upTo };
}
