import { APPEND_FUNCTION_SQL } from './append-function.js';
import { APPEND_FUNCTION_V3_SQL } from './append-function-v3.js';
import { APPEND_FUNCTION_V4_SQL } from './append-function-v4.js';
import { APPEND_FUNCTION_V5_SQL } from './append-function-v5.js';

/**
 * Baton's PostgreSQL schema as numbered migrations. A migration is never edited once released:
 * a change is a new migration with the next number. `migrate.ts` applies the pending ones in one
 * transaction under an advisory lock and records each in `baton_migrations`.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The per-connection setting that names the workspace a connection may see (row-level security). */
export const WORKSPACE_SETTING = 'baton.workspace_id';

const tenantPolicy = (table: string): string => `
ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
-- FORCE: the policy binds the table's owner too, so the app role that created the schema is
-- still confined to its workspace.
ALTER TABLE ${table} FORCE ROW LEVEL SECURITY;
CREATE POLICY ${table}_workspace ON ${table}
  USING (workspace_id = current_setting('${WORKSPACE_SETTING}', true))
  WITH CHECK (workspace_id = current_setting('${WORKSPACE_SETTING}', true));
`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'events, heads, idempotency keys, row-level security',
    sql: `
-- One row per workspace: the head of its hash chain. Appends lock it (SELECT … FOR UPDATE), which
-- serialises them per workspace: seq is assigned gap-free and in commit order, and the chain has
-- exactly one successor per event.
CREATE TABLE baton_heads (
  workspace_id text PRIMARY KEY,
  seq bigint NOT NULL CHECK (seq >= 0),
  hash text NOT NULL,
  last_id text NOT NULL DEFAULT ''
);

CREATE TABLE baton_events (
  workspace_id text NOT NULL,
  seq bigint NOT NULL CHECK (seq >= 1),
  id text NOT NULL,
  type text NOT NULL,
  stream text NOT NULL,
  stream_version integer NOT NULL CHECK (stream_version >= 1),
  at timestamptz NOT NULL,
  actor text NOT NULL,
  -- For SQL consumers; jsonb normalises numbers and key order, so it is not what is hashed.
  data jsonb NOT NULL,
  idempotency_key text,
  batch_end bigint,
  prev text NOT NULL,
  hash text NOT NULL,
  -- The event exactly as stored (canonical JSON, the bytes the hash covers): read and verify use it.
  line text NOT NULL,
  -- The writing transaction, for auditors and SQL consumers that want commit-safe positions.
  tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  PRIMARY KEY (workspace_id, seq),
  UNIQUE (workspace_id, id),
  -- Per-stream versions, enforced by the database as well as by the append's own check.
  UNIQUE (workspace_id, stream, stream_version)
);

CREATE INDEX baton_events_type ON baton_events (workspace_id, type, seq);

-- Idempotency keys: one row per key and workspace, so the database refuses a second use.
CREATE TABLE baton_idempotency (
  workspace_id text NOT NULL,
  key text NOT NULL,
  digest text NOT NULL,
  first_seq bigint NOT NULL,
  last_seq bigint NOT NULL,
  PRIMARY KEY (workspace_id, key)
);
${tenantPolicy('baton_heads')}
${tenantPolicy('baton_events')}
${tenantPolicy('baton_idempotency')}
`,
  },
  {
    version: 2,
    name: 'baton_append: one round trip per append',
    sql: APPEND_FUNCTION_SQL,
  },
  {
    version: 3,
    name: 'baton_append takes the columns beside the lines: no jsonb parse of each line',
    sql: APPEND_FUNCTION_V3_SQL,
  },
  {
    version: 4,
    name: 'appended rows leave prev and hash to their line: fewer bytes per event',
    sql: APPEND_FUNCTION_V4_SQL,
  },
  {
    version: 5,
    name: 'baton_append for one event: scalars, the batch form only when the plain case does not hold',
    sql: APPEND_FUNCTION_V5_SQL,
  },
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;
