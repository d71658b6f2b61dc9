import type { PoolClient } from 'pg';
import type { EventCatalog } from '../../../events/catalog.js';
import type { StoredEvent } from '../../../events/envelope.js';
import { GENESIS_HASH } from '../../../events/patterns.js';
import { ConflictError, invalidInput } from '../../errors.js';
import { ChainChecker } from '../chain-checker.js';
import type { Head } from '../contract.js';
import { serializeEvent } from '../hash.js';
import { emptyIndex, IndexBuilder } from '../store-index.js';
import { emptyRowArrays, insertEventsSql, pushRow, rowArrayParams } from './event-rows.js';

/** Rows inserted at once. */
const PAGE = 1000;

/** Where an import goes: the workspace, its catalog, the channel readers listen on, and the head as locked. */
export interface ImportTarget {
  workspaceId: string;
  catalog: EventCatalog;
  channel: string;
  head: number;
}

/**
 * Inside the import's transaction, with the head locked: every event passes the chain checker
 * before it is inserted, stream versions and idempotency keys are rebuilt from the events.
 */
export async function importRows(client: PoolClient, target: ImportTarget, events: AsyncIterable<StoredEvent>): Promise<Head> {
  const ws = target.workspaceId;
  const any = await client.query('SELECT 1 FROM baton_events WHERE workspace_id = $1 LIMIT 1', [ws]);
  if (target.head !== 0 || any.rows.length > 0) throw new ConflictError(`the store is not empty (head seq ${target.head}); import needs an empty store`);
  const checker = new ChainChecker(target.catalog);
  const index = emptyIndex();
  const builder = new IndexBuilder(index);
  let rows = emptyRowArrays();
  let last: StoredEvent | undefined;
  const flush = async (): Promise<void> => {
    if (rows.seq.length === 0) return;
    await client.query(insertEventsSql(2), [ws, ...rowArrayParams(rows)]);
    rows = emptyRowArrays();
  };
  let offset = 0;
  for await (const event of events) {
    // The line is built from the event, so the check is about content (schema, seq, chain,
    // hash), as in the other adapters; what is stored is then exactly that canonical line.
    const result = checker.check(serializeEvent(event), offset);
    if (!result.ok) throw invalidInput(`event at seq ${result.bad.seq}: ${result.bad.reason}`, 'import');
    builder.add(result.event);
    pushRow(rows, result.event, index.streams.get(result.event.stream)!);
    last = result.event;
    offset += 1;
    if (rows.seq.length >= PAGE) await flush();
  }
  await flush();
  builder.flush();
  if (!last) return { seq: 0, hash: GENESIS_HASH };
  const keys = [...index.idempotency.entries()];
  await client.query(
    `INSERT INTO baton_idempotency (workspace_id, key, digest, first_seq, last_seq)
     SELECT $1, k.key, k.digest, k.first_seq, k.last_seq FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[]) AS k(key, digest, first_seq, last_seq)`,
    [ws, keys.map(([k]) => k), keys.map(([, r]) => r.digest), keys.map(([, r]) => r.first), keys.map(([, r]) => r.last)],
  );
  await client.query('UPDATE baton_heads SET seq = $2, hash = $3, last_id = $4 WHERE workspace_id = $1', [ws, last.seq, last.hash, last.id]);
  await client.query('SELECT pg_notify($1, $2)', [target.channel, String(last.seq)]);
  return { seq: last.seq, hash: last.hash };
}
