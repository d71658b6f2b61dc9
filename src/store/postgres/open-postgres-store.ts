import pg from 'pg';
import type { EventCatalog } from '../../../events/catalog.js';
import type { StoredEvent } from '../../../events/envelope.js';
import { migrate } from './migrate.js';
import { WORKSPACE_SETTING } from './migrations.js';
import { channelFor, NotificationHub } from './notification-hub.js';
import { translateFailure } from './pg-failures.js';
import { PostgresEventStore } from './postgres-store.js';
import { resolvePostgresTarget, type PostgresTarget } from './postgres-target.js';

/**
 * Opening a PostgreSQL store: resolve the configuration (INVALID_INPUT when it is bad), connect
 * (STORE_UNAVAILABLE, naming host and port, when the server can't be reached), bring the schema up
 * to date, and hand back the adapter. This module is the only one that loads `pg`, and it is
 * itself imported lazily, so commands on a JSONL workspace never load the driver.
 */
export interface OpenPostgresOptions {
  url: string;
  workspace_id?: string | undefined;
  catalog: EventCatalog;
  now: () => string;
  actor: string;
  /** Connections kept per store (appends of one process share them). */
  maxConnections?: number;
  connectTimeoutMs?: number;
  pollIntervalMs?: number;
  /** Test seam, see PostgresStoreOptions.beforeCommit. */
  beforeCommit?: (events: readonly StoredEvent[]) => Promise<void>;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 5000;

/** Connection settings for one workspace: every connection carries its workspace setting from the start. */
export function connectionConfig(target: PostgresTarget, connectTimeoutMs: number): pg.ClientConfig {
  return {
    connectionString: target.connectionString,
    connectionTimeoutMillis: connectTimeoutMs,
    // Sent in the startup packet, so no statement ever runs on a connection without it; the
    // workspace id pattern (letters, digits, . _ : @ -) needs no escaping here.
    options: `-c ${WORKSPACE_SETTING}=${target.workspaceId}`,
    application_name: 'baton',
  };
}

export async function openPostgresStore(options: OpenPostgresOptions): Promise<PostgresEventStore> {
  const target = resolvePostgresTarget({ url: options.url, workspace_id: options.workspace_id });
  const config = connectionConfig(target, options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
  const pool = new pg.Pool({ ...config, max: options.maxConnections ?? 4, idleTimeoutMillis: 10_000 });
  // An idle connection dropped by the server must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  try {
    const client = await pool.connect();
    try {
      await migrate(client);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw translateFailure(target, error);
  }
  const hub = new NotificationHub(() => new pg.Client(config), channelFor(target.workspaceId));
  return new PostgresEventStore({
    target,
    pool,
    hub,
    catalog: options.catalog,
    now: options.now,
    actor: options.actor,
    ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
    ...(options.beforeCommit ? { beforeCommit: options.beforeCommit } : {}),
  });
}
