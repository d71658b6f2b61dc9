import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../events/envelope.js';
import { isBatonError } from '../../src/errors.js';
import type { PostgresEventStore } from '../../src/store/postgres/postgres-store.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { freshDatabase, newWorkspaceId, openOnDatabase, superuserClient, unicodeNote } from './postgres-harness.js';

/**
 * The adapter reads a page of rows per query (1,000), and hands them out event by event (`read`),
 * line by line (`readLines`) or a page at a time (`readChunks`, which the projection runner
 * uses: one promise per page instead of one per event). All three hand out the same events, and
 * a row deleted or relinked behind the adapter's back ends all three at the same place with the
 * same error, the rows before it handed out first.
 */
let cluster: PostgresCluster;
let databaseUrl: string;

beforeAll(async () => {
  cluster = await startPostgresCluster();
  databaseUrl = await freshDatabase(cluster, 'pages');
});

afterAll(async () => {
  await cluster?.stop();
});

const EVENTS = 2_500;

async function filledWorkspace(): Promise<{ workspace: string; store: PostgresEventStore; written: StoredEvent[] }> {
  const workspace = newWorkspaceId('pages');
  const store = await openOnDatabase(databaseUrl, workspace);
  const written: StoredEvent[] = [];
  for (let n = 0; n < EVENTS; n += 500)
    written.push(...(await store.append(Array.from({ length: 500 }, (_, i) => unicodeNote(`note/s${(n + i) % 7}`, `note ${n + i}`)))).events);
  return { workspace, store, written };
}

type Outcome = { seqs: number[]; chunks: number[]; error: { code: string; details: unknown } | undefined };

async function outcomeOf(read: () => AsyncIterable<StoredEvent | readonly StoredEvent[] | { event: StoredEvent }>): Promise<Outcome> {
  const outcome: Outcome = { seqs: [], chunks: [], error: undefined };
  try {
    for await (const item of read()) {
      if (Array.isArray(item)) {
        outcome.chunks.push(item.length);
        outcome.seqs.push(...(item as readonly StoredEvent[]).map((e) => e.seq));
      } else outcome.seqs.push('event' in item ? item.event.seq : (item as StoredEvent).seq);
    }
  } catch (error) {
    if (!isBatonError(error)) throw error;
    outcome.error = { code: error.code, details: error.details };
  }
  return outcome;
}

async function threeWays(store: PostgresEventStore): Promise<{ read: Outcome; chunks: Outcome; lines: Outcome }> {
  return {
    read: await outcomeOf(() => store.read()),
    chunks: await outcomeOf(() => store.readChunks()),
    lines: await outcomeOf(() => store.readLines()),
  };
}

describe('PostgreSQL reads, a page at a time', () => {
  it('read, readChunks and readLines hand out the same events; readChunks one chunk per page', async () => {
    const { store, written } = await filledWorkspace();
    try {
      const { read, chunks, lines } = await threeWays(store);
      const all = written.map((e) => e.seq);
      expect(read).toEqual({ seqs: all, chunks: [], error: undefined });
      expect(lines).toEqual({ seqs: all, chunks: [], error: undefined });
      expect(chunks).toEqual({ seqs: all, chunks: [1_000, 1_000, 500], error: undefined });
      const events: StoredEvent[] = [];
      for await (const chunk of store.readChunks({ from: 990, to: 2_010 })) events.push(...chunk);
      expect(events).toEqual(written.slice(989, 2_010));
    } finally {
      await store.close();
    }
  });

  it.each([
    ['a deleted row (a hole in seq)', 'DELETE FROM baton_events WHERE workspace_id = $1 AND seq = 1500', { seq: 1_500, reason: 'missing event (hole in seq)' }],
    [
      'a line whose prev names another event',
      `UPDATE baton_events SET line = regexp_replace(line, '"prev":"[0-9a-f]{64}"', '"prev":"${'a'.repeat(64)}"') WHERE workspace_id = $1 AND seq = 1500`,
      { seq: 1_500, reason: 'prev does not match the previous event hash (chain broken)' },
    ],
  ])('%s ends all three reads at the same place, with the same error, the rows before it handed out first', async (_name, sql, expected) => {
    const { workspace, store } = await filledWorkspace();
    const admin = await superuserClient(databaseUrl);
    try {
      await admin.query(sql, [workspace]);
      const { read, chunks, lines } = await threeWays(store);
      const before = Array.from({ length: 1_499 }, (_, i) => i + 1);
      expect(read.seqs).toEqual(before);
      expect(read.error).toMatchObject({ code: 'LOG_CORRUPT', details: expected });
      expect(lines).toEqual(read);
      expect({ ...chunks, chunks: [] }).toEqual(read);
      // The page holding the bad row hands over the 499 rows before it.
      expect(chunks.chunks).toEqual([1_000, 499]);
    } finally {
      await admin.end();
      await store.close();
    }
  });
});
