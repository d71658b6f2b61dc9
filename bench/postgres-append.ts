import pg from 'pg';
import { createCatalog } from '../events/index.js';
import type { ExpectedVersion } from '../src/store/contract.js';
import { openPostgresStore } from '../src/store/postgres/open-postgres-store.js';
import type { PostgresEventStore } from '../src/store/postgres/postgres-store.js';
import { findPostgresBin, startPostgresCluster, type PostgresCluster } from '../test/helpers/postgres-cluster.js';
import { formatNumber, rate, type BenchResult } from './report.js';
import { mean, noteEvent, rawLine } from './support.js';

/**
 * Baton on PostgreSQL: durable appends (fsync and synchronous commit on, as a real server runs)
 * against a throwaway cluster on a Unix socket. The machine's limit is the same work with no
 * Baton in it: a raw `INSERT` + `COMMIT` loop through `pg` on the same server, into a plain table
 * of the same line size, measured just before and just after (the mean is reported).
 */
export const POSTGRES_APPEND_SINGLE = {
  name: 'postgres-append-single',
  work: 'PostgreSQL: durable append, one event per call with an expected version, one process',
  /** No spec budget for PostgreSQL: the floor is a share of the raw INSERT+COMMIT loop. */
  floorRatio: 0.4,
};

export const POSTGRES_APPEND_BATCH = {
  name: 'postgres-append-batch',
  work: 'PostgreSQL: durable append, batches of 100 in one call',
  /**
   * Lower than for single events: Baton's rows carry four indexes (seq, id, stream version, type),
   * a jsonb parse of each line and the row-level-security check, where the raw table has one key;
   * with 100 rows per commit that work, not the fsync, dominates. A regression guard, not a goal.
   */
  floorRatio: 0.15,
};

const BATCH = 100;
const WARMUP = 50;

/** Why the PostgreSQL benchmarks cannot run here, or undefined when they can. */
export function postgresBenchSkipReason(): string | undefined {
  return findPostgresBin() ? undefined : 'no PostgreSQL server binaries (initdb, pg_ctl) on this machine; install postgresql to run it';
}

async function withCluster<T>(body: (cluster: PostgresCluster, store: PostgresEventStore, raw: pg.Client) => Promise<T>): Promise<T> {
  const cluster = await startPostgresCluster({ durable: true });
  let store: PostgresEventStore | undefined;
  const raw = new pg.Client({ connectionString: cluster.appUrl });
  try {
    store = await openPostgresStore({
      url: cluster.urlFor('bench'),
      catalog: createCatalog(),
      now: () => new Date().toISOString(),
      actor: 'bench',
      maxConnections: 1,
    });
    await raw.connect();
    await raw.query('CREATE TABLE raw_limit (seq bigint PRIMARY KEY, line text NOT NULL)');
    return await body(cluster, store, raw);
  } finally {
    await raw.end().catch(() => undefined);
    await store?.close();
    await cluster.stop();
  }
}

/** The raw limit: `batches` transactions of BEGIN, one INSERT of `size` rows, COMMIT. */
async function rawInsertLoop(raw: pg.Client, batches: number, size: number, start: number): Promise<{ events: number; ms: number }> {
  const line = rawLine().toString('utf8').trimEnd();
  const lines = Array.from({ length: size }, () => line);
  const began = performance.now();
  for (let b = 0; b < batches; b++) {
    const first = start + b * size;
    await raw.query('BEGIN');
    if (size === 1) await raw.query('INSERT INTO raw_limit (seq, line) VALUES ($1, $2)', [first, line]);
    else await raw.query('INSERT INTO raw_limit (seq, line) SELECT $1::bigint + i, l FROM unnest($2::text[]) WITH ORDINALITY AS u(l, i)', [first, lines]);
    await raw.query('COMMIT');
  }
  return { events: batches * size, ms: performance.now() - began };
}

function result(
  spec: { name: string; work: string; floorRatio: number },
  events: number,
  ms: number,
  limits: { events: number; ms: number }[],
  detail: string,
  limitDetail: string,
  notes: string[],
): BenchResult {
  const batonRate = rate(events, ms);
  const limitRates = limits.map((l) => rate(l.events, l.ms));
  const limitRate = mean(limitRates);
  const ratio = batonRate / limitRate;
  return {
    name: spec.name,
    work: spec.work,
    baton: { value: batonRate, unit: 'events/s', detail },
    limit: { value: limitRate, unit: 'events/s', detail: `${limitDetail} (before ${formatNumber(limitRates[0]!)}, after ${formatNumber(limitRates[1]!)})` },
    ratio,
    floor: `≥ ${spec.floorRatio}× the raw INSERT+COMMIT loop`,
    pass: ratio >= spec.floorRatio,
    notes,
  };
}

export async function benchPostgresAppendSingle(options: { events: number }): Promise<BenchResult> {
  return withCluster(async (_cluster, store, raw) => {
    const versions = new Map<string, number>();
    const appendOne = async (i: number): Promise<void> => {
      const event = noteEvent(i);
      const expected: ExpectedVersion = versions.get(event.stream) ?? 'no_stream';
      await store.append([event], { expectedVersion: expected });
      versions.set(event.stream, (versions.get(event.stream) ?? 0) + 1);
    };
    for (let i = 0; i < WARMUP; i++) await appendOne(i);
    await rawInsertLoop(raw, WARMUP, 1, 1);
    const before = await rawInsertLoop(raw, options.events, 1, 1_000_000);
    const start = performance.now();
    for (let i = 0; i < options.events; i++) await appendOne(WARMUP + i);
    const ms = performance.now() - start;
    const after = await rawInsertLoop(raw, options.events, 1, 2_000_000);

    const readStart = performance.now();
    let read = 0;
    for await (const _event of store.read()) read += 1;
    const readMs = performance.now() - readStart;
    const report = await store.verify();
    if (!report.ok || report.head_seq !== WARMUP + options.events) throw new Error(`verify after the run: ${JSON.stringify(report)}`);
    return result(
      POSTGRES_APPEND_SINGLE,
      options.events,
      ms,
      [before, after],
      `${formatNumber(options.events)} appends in ${formatNumber(ms)} ms (${(ms / options.events).toFixed(3)} ms each)`,
      'raw BEGIN + INSERT one row + COMMIT via pg',
      [`read back ${formatNumber(read)} events in ${formatNumber(readMs)} ms (${formatNumber(rate(read, readMs))} events/s); verify ok`],
    );
  });
}

export async function benchPostgresAppendBatch(options: { batches: number }): Promise<BenchResult> {
  return withCluster(async (_cluster, store, raw) => {
    const batch = (b: number) => Array.from({ length: BATCH }, (_, i) => noteEvent(b * BATCH + i));
    for (let b = 0; b < 5; b++) await store.append(batch(b));
    await rawInsertLoop(raw, 5, BATCH, 1);
    const before = await rawInsertLoop(raw, options.batches, BATCH, 1_000_000);
    const start = performance.now();
    for (let b = 0; b < options.batches; b++) await store.append(batch(5 + b));
    const ms = performance.now() - start;
    const after = await rawInsertLoop(raw, options.batches, BATCH, 10_000_000);
    const events = options.batches * BATCH;
    const readStart = performance.now();
    let read = 0;
    for await (const _event of store.read()) read += 1;
    const readMs = performance.now() - readStart;
    return result(
      POSTGRES_APPEND_BATCH,
      events,
      ms,
      [before, after],
      `${formatNumber(options.batches)} batches of ${BATCH} in ${formatNumber(ms)} ms`,
      `raw BEGIN + INSERT ${BATCH} rows (unnest) + COMMIT via pg`,
      [`read back ${formatNumber(read)} events in ${formatNumber(readMs)} ms (${formatNumber(rate(read, readMs))} events/s)`],
    );
  });
}
