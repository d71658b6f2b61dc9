import { dirname } from 'node:path';
import pg from 'pg';
import { startPostgresCluster } from '../test/helpers/postgres-cluster.js';
import { postgresBenchSkipReason } from './postgres-append.js';
import { formatNumber, formatRatio, rate, type BenchResult } from './report.js';
import {
  BATCH_SIZE,
  BATCH_STREAMS,
  installedVersion,
  READ_PAGE,
  SINGLE_STREAMS,
  type ComparisonChildResult,
  type SystemName,
  type Timed,
} from './store-comparison-child.js';
import { lastJsonLine, makeTempDir, NOTE_TEXT_LENGTH, PROJECT_ROOT, rawLine, removeTempDir, runChild } from './support.js';

/**
 * Issue #7's side-by-side: Baton on PostgreSQL, Baton on JSONL and Emmett's PostgreSQL event store
 * (`@event-driven-io/emmett-postgresql`, a bench-only dependency) doing the same work in one run,
 * on the same machine: the two PostgreSQL systems on ONE throwaway cluster (durable: fsync and
 * synchronous commit on, a CHECKPOINT before each), the JSONL store in a temporary folder on the
 * same disk as the cluster. Each system runs in a child process of its own (see
 * store-comparison-child.ts): 10,000 single-event appends with expected versions, 100,000 events in
 * batches of 100, then every event read back in global order.
 *
 * There is no floor: the figures and the ratios against Emmett are the result.
 */
export const STORE_COMPARISON = {
  name: 'store-comparison',
  work: 'Baton-PG vs Baton-JSONL vs Emmett-PG, same work, same server: single appends with expected versions, batches of 100, read all',
};

const EMMETT_PACKAGE = '@event-driven-io/emmett-postgresql';

const LABELS: Record<SystemName, string> = {
  'baton-pg': 'Baton-PG',
  'baton-jsonl': 'Baton-JSONL',
  'emmett-pg': 'Emmett-PG',
};

/** Why the comparison cannot run here, or undefined when it can. */
export function storeComparisonSkipReason(): string | undefined {
  const pgReason = postgresBenchSkipReason();
  if (pgReason !== undefined) return pgReason;
  if (installedVersion(PROJECT_ROOT, EMMETT_PACKAGE) === undefined) return `${EMMETT_PACKAGE} (a devDependency) is not installed; run npm install`;
  return undefined;
}

interface Works {
  single: Timed;
  batch: Timed;
  read: Timed;
}

type WorkName = keyof Works;

async function scalar(client: pg.Client, sql: string): Promise<number> {
  const row = (await client.query<{ value: string | null }>(sql)).rows[0];
  return Number(row?.value ?? 0);
}

/** Bytes on disk (heap, indexes, TOAST) of a table, summed over its partitions when it has any. */
function tableBytes(client: pg.Client, table: string): Promise<number> {
  return scalar(client, `SELECT coalesce(sum(pg_total_relation_size(relid)), 0)::text AS value FROM pg_partition_tree('${table}'::regclass)`);
}

async function serverDescription(client: pg.Client): Promise<string> {
  const names = ['server_version', 'fsync', 'synchronous_commit', 'wal_sync_method', 'full_page_writes', 'shared_buffers', 'max_wal_size'];
  const rows = (await client.query<{ name: string; setting: string; unit: string | null }>('SELECT name, setting, unit FROM pg_settings WHERE name = ANY($1)', [names])).rows;
  const byName = new Map(rows.map((r) => [r.name, r.unit && /^\d+$/.test(r.setting) ? `${r.setting}×${r.unit}` : r.setting]));
  return names.map((n) => `${n}=${byName.get(n) ?? '?'}`).join(', ');
}

function cell(t: Timed): string {
  return `${formatNumber(rate(t.events, t.ms))}/s (${formatNumber(t.ms)} ms)`;
}

function printTable(results: Record<SystemName, Works>, single: number, batches: number): void {
  const total = single + batches * BATCH_SIZE;
  const works: { key: WorkName; label: string }[] = [
    { key: 'single', label: `${formatNumber(single)} single appends, expected version` },
    { key: 'batch', label: `${formatNumber(batches * BATCH_SIZE)} events, ${formatNumber(batches)} batches of ${BATCH_SIZE}` },
    { key: 'read', label: `read all ${formatNumber(total)} back` },
  ];
  const header = ['work (events/s, wall time)', LABELS['baton-pg'], LABELS['baton-jsonl'], LABELS['emmett-pg'], 'Baton-PG/Emmett', 'Baton-JSONL/Emmett'];
  const rows = works.map(({ key, label }) => {
    const emmett = rate(results['emmett-pg'][key].events, results['emmett-pg'][key].ms);
    return [
      label,
      cell(results['baton-pg'][key]),
      cell(results['baton-jsonl'][key]),
      cell(results['emmett-pg'][key]),
      formatRatio(rate(results['baton-pg'][key].events, results['baton-pg'][key].ms) / emmett),
      formatRatio(rate(results['baton-jsonl'][key].events, results['baton-jsonl'][key].ms) / emmett),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string => '  ' + cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ');
  console.log(line(header));
  console.log('  ' + widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const row of rows) console.log(line(row));
}

export async function benchStoreComparison(options: { single: number; batches: number }): Promise<BenchResult[]> {
  const { single, batches } = options;
  const total = single + batches * BATCH_SIZE;
  const emmettVersion = installedVersion(PROJECT_ROOT, EMMETT_PACKAGE) ?? '?';
  const emmettCore = installedVersion(PROJECT_ROOT, '@event-driven-io/emmett') ?? '?';
  const dumboVersion = installedVersion(PROJECT_ROOT, '@event-driven-io/dumbo') ?? '?';
  const pgVersion = installedVersion(PROJECT_ROOT, 'pg') ?? '?';

  const cluster = await startPostgresCluster({ durable: true });
  const admin = new pg.Client({ connectionString: cluster.superuserUrl });
  const jsonlDir = makeTempDir('compare-jsonl');
  try {
    await admin.connect();
    console.log(`  emmett-postgresql ${emmettVersion} (emmett ${emmettCore}, dumbo ${dumboVersion}); node-postgres ${pgVersion} for all three`);
    console.log(`  one cluster for both PostgreSQL systems, Unix socket in ${cluster.dir}: ${await serverDescription(admin)}`);
    console.log(`  JSONL workspace ${jsonlDir} (same file system as the cluster: ${dirname(jsonlDir) === dirname(cluster.dir) ? 'yes, both under ' + dirname(jsonlDir) : 'NO'}); fdatasync per append`);
    console.log(
      `  events: note.recorded {text} with ${NOTE_TEXT_LENGTH}-char text (data ${Buffer.byteLength(JSON.stringify({ text: 'x'.repeat(NOTE_TEXT_LENGTH) }))} bytes of JSON; Baton's stored line ${rawLine().length} bytes); ` +
        `singles cycle over ${SINGLE_STREAMS} streams, batches over ${BATCH_STREAMS} others (one stream per batch), expected versions tracked client-side for every append; ` +
        `read all: Baton store.read(), Emmett readMessagesBatch (global position, ${formatNumber(READ_PAGE)} a page)`,
    );

    const order: SystemName[] = ['baton-pg', 'emmett-pg', 'baton-jsonl'];
    const targets: Record<SystemName, string> = {
      'baton-pg': cluster.urlFor('bench'),
      'emmett-pg': cluster.appUrl,
      'baton-jsonl': jsonlDir,
    };
    const children = {} as Record<SystemName, ComparisonChildResult>;
    for (const system of order) {
      // Start each PostgreSQL system from a clean checkpoint, so none pays for the WAL of another.
      if (system !== 'baton-jsonl') await admin.query('CHECKPOINT');
      process.stdout.write(`  ${LABELS[system].padEnd(11)}: running…`);
      const out = await runChild('store-comparison-child', [system, targets[system], String(single), String(batches)]);
      const result = lastJsonLine<ComparisonChildResult>(out);
      children[system] = result;
      const parts = (['single', 'batch', 'read'] as const).map((k) => `${k} ${formatNumber(result[k].ms)} ms`).join(', ');
      console.log(` ${parts}; peak RSS ${formatNumber(result.maxRssMB)} MB${result.notes.length > 0 ? '; ' + result.notes.join('; ') : ''}`);
    }

    const batonBytes = await tableBytes(admin, 'baton_events');
    const emmettBytes = (await tableBytes(admin, 'emt_messages')) + (await tableBytes(admin, 'emt_streams'));
    console.log(`  on disk in PostgreSQL (tables + indexes): Baton ${formatNumber(batonBytes / total)} bytes/event, Emmett ${formatNumber(emmettBytes / total)} bytes/event`);
    console.log('');
    printTable(children, single, batches);

    const describe: Record<WorkName, string> = {
      single: `${formatNumber(single)} single-event appends with expected versions`,
      batch: `${formatNumber(batches * BATCH_SIZE)} events in batches of ${BATCH_SIZE}`,
      read: `read all ${formatNumber(total)} events back`,
    };
    return (['single', 'batch', 'read'] as const).map((work): BenchResult => {
      const batonPg = rate(children['baton-pg'][work].events, children['baton-pg'][work].ms);
      const jsonl = rate(children['baton-jsonl'][work].events, children['baton-jsonl'][work].ms);
      const emmett = rate(children['emmett-pg'][work].events, children['emmett-pg'][work].ms);
      return {
        name: `${STORE_COMPARISON.name}/${work}`,
        work: describe[work],
        baton: { value: batonPg, unit: 'events/s', detail: `Baton on PostgreSQL, ${formatNumber(children['baton-pg'][work].ms)} ms` },
        limit: { value: emmett, unit: 'events/s', detail: `Emmett ${emmettVersion} on the same server, ${formatNumber(children['emmett-pg'][work].ms)} ms (the reference, not a machine limit)` },
        ratio: batonPg / emmett,
        ratioLabel: 'Baton-PG / Emmett-PG',
        floor: 'none (comparison)',
        pass: true,
        notes: [`Baton on JSONL: ${formatNumber(jsonl)} events/s = ${formatRatio(jsonl / emmett)} Emmett's`],
      };
    });
  } finally {
    await admin.end().catch(() => undefined);
    await cluster.stop();
    removeTempDir(jsonlDir);
  }
}
