import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { NewEvent, StoredEvent } from '../../events/envelope.js';
import { createCatalog } from '../../events/index.js';
import { emptySealedColumns, sealBatch, validateBatch, type SealedColumns, type ValidatedBatch } from '../../src/store/append-plan.js';
import type { AppendOptions } from '../../src/store/contract.js';
import { batchAppendArguments } from '../../src/store/postgres/append-arguments.js';
import { channelFor } from '../../src/store/postgres/notification-hub.js';
import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.js';
import type { PostgresEventStore } from '../../src/store/postgres/postgres-store.js';
import { APP_DATABASE, APP_ROLE, SUPERUSER, type PostgresCluster } from '../helpers/postgres-cluster.js';

/** Opening adapter instances on a test cluster, one fresh workspace id per call unless given. */
export function newWorkspaceId(label = 'ws'): string {
  return `${label}-${randomUUID()}`;
}

export interface OpenOptions {
  actor?: string;
  maxConnections?: number;
  beforeCommit?: (events: readonly StoredEvent[]) => Promise<void>;
}

export function openOn(cluster: PostgresCluster, workspaceId: string, options: OpenOptions = {}): Promise<PostgresEventStore> {
  return openPostgresStore({
    url: cluster.urlFor(workspaceId),
    catalog: createCatalog(),
    now: () => new Date().toISOString(),
    actor: options.actor ?? 'system',
    ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {}),
    ...(options.beforeCommit ? { beforeCommit: options.beforeCommit } : {}),
  });
}

/** The head a call is built on: its seq, hash and last id ('' before the first event). */
export type CallHead = { seq: number; hash: string; lastId: string };

/** A note whose text holds what JSON and SQL text escape: non-ASCII, quotes, a backslash. */
export function unicodeNote(stream: string, text: string): NewEvent {
  return { type: 'note.recorded', stream, data: { text: `${text} — ünïcødé "quoted" \\ ✓` } };
}

/** A batch sealed for one call of `baton_append`: the validated batch, its columns and its lines. */
export interface SealedCall {
  batch: ValidatedBatch;
  columns: SealedColumns;
  plan: ReturnType<typeof sealBatch>;
}

/** The batch built on `head` (ids, chain, lines and columns) as the adapter builds it before its call, at a fixed time. */
export async function sealForCall(head: CallHead, events: NewEvent[], options: AppendOptions = {}, actor = 'tester'): Promise<SealedCall> {
  const batch = await validateBatch(createCatalog(), events, options);
  const columns = emptySealedColumns();
  const plan = sealBatch(batch, head, { now: () => '2025-06-07T08:09:10.000Z', defaultActor: actor, lastId: head.lastId || undefined }, columns);
  return { batch, columns, plan };
}

/** What a Baton of migration 3's shape sealed for one call: the batch, its columns and its lines. */
export interface SealedForVersion3 {
  batch: ValidatedBatch;
  columns: SealedColumns;
  plan: { bytes: Buffer };
}

/**
 * The 16 arguments of migration 3's `baton_append`, as the adapter of that version passed them:
 * the batch form's, which migrations 4 and 5 keep (should the batch form change, this keeps
 * migration 3's).
 */
export function version3Arguments(workspace: string, head: { seq: number; hash: string }, { batch, columns, plan }: SealedForVersion3): unknown[] {
  return batchAppendArguments(workspace, channelFor(workspace), head, batch, plan.bytes, columns);
}

export const CALL_VERSION_3 = 'SELECT status FROM baton_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)';

/** A connection to the same database as the adapter's, as the superuser: free to write any column (tampering, as an intruder would). */
export async function superuserClient(databaseUrl: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl.replace(`${APP_ROLE}@`, `${SUPERUSER}@`) });
  await client.connect();
  return client;
}

/**
 * A database of its own on the cluster (privileges and migrations are per database), named after
 * `label`, owned by the app role; returns the app role's URL for it.
 */
export async function freshDatabase(cluster: PostgresCluster, label: string): Promise<string> {
  const name = `${label}_${newWorkspaceId('db').replace(/[^a-z0-9]/g, '_')}`;
  const admin = await superuserClient(cluster.appUrl);
  try {
    await admin.query(`CREATE DATABASE ${name} OWNER ${APP_ROLE}`);
  } finally {
    await admin.end();
  }
  return cluster.appUrl.replace(`/${APP_DATABASE}?`, `/${name}?`);
}

/** The adapter on one workspace of a database `freshDatabase` made. */
export function openOnDatabase(databaseUrl: string, workspace: string, actor = 'system'): Promise<PostgresEventStore> {
  return openPostgresStore({
    url: `${databaseUrl}&workspace_id=${encodeURIComponent(workspace)}`,
    catalog: createCatalog(),
    now: () => new Date().toISOString(),
    actor,
  });
}
