import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startPostgresCluster } from '../test/helpers/postgres-cluster.js';
import { postgresBenchSkipReason } from './postgres-append.js';
import { rawAppendLoop } from './raw-append.js';
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
 * The machine is shared and its disk's fdatasync pace swings by an order of magnitude from minute
 * to minute, so the work runs in rounds (3 in a full run), the order of the systems reversed every
 * other round, each run on a fresh store; the table keeps each system's best round, and each run's
 * line shows a raw append+fdatasync probe taken just before it. There is no floor: the figures and
 * the ratios against Emmett are the result.
 */
export const STORE_COMPARISON = {
  name: 'store-comparison',
  work: 'Baton-PG vs Baton-JSONL vs Emmett-PG, same work, same server: single appends with expected versions, batches of 100, read all',
};

const EMMETT_PACKAGE = '@event-driven-io/emmett-postgresql';
/** Writes of the disk probe run before each system's run (a raw O_APPEND write + fdatasync loop). */
const FSYNC_PROBE = 200;

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

/**
 * Bytes on disk (heap, indexes, TOAST) of a table; for a partitioned table (Emmett's), summed over
 * its partitions, since the parent itself holds nothing.
 */
function tableBytes(client: pg.Client, table: string): Promise<number> {
  return scalar(
    client,
    `SELECT CASE WHEN c.relkind = 'p'
              THEN (SELECT coalesce(sum(pg_total_relation_size(t.relid)), 0) FROM pg_partition_tree(c.oid) t)
              ELSE pg_total_relation_size(c.oid) END::text AS value
       FROM pg_class c WHERE c.oid = '${table}'::regclass`,
  );
}

async function serverDescription(client: pg.Client): Promise<string> {
  const names = ['server_version', 'fsync', 'synchronous_commit', 'wal_sync_method', 'full_page_writes', 'shared_buffers', 'max_wal_size'];
  const rows = (
    await client.query<{ name: string; setting: string; unit: string | null }>('SELECT name, setting, unit FROM pg_settings WHERE name = ANY($1)', [names])
  ).rows;
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

/** The best of the rounds for one work: the least disturbed figure on a shared machine. */
function best(rounds: readonly ComparisonChildResult[], work: WorkName): Timed {
  const sorted = [...rounds].sort((a, b) => rate(b[work].events, b[work].ms) - rate(a[work].events, a[work].ms));
  const top = sorted[0];
  if (!top) throw new Error('no round ran');
  return top[work];
}

export async function benchStoreComparison(options: { single: number; batches: number; rounds: number }): Promise<BenchResult[]> {
  const { single, batches, rounds } = options;
  const total = single + batches * BATCH_SIZE;
  const emmettVersion = installedVersion(PROJECT_ROOT, EMMETT_PACKAGE) ?? '?';
  const emmettCore = installedVersion(PROJECT_ROOT, '@event-driven-io/emmett') ?? '?';
  const dumboVersion = installedVersion(PROJECT_ROOT, '@event-driven-io/dumbo') ?? '?';
  const pgVersion = installedVersion(PROJECT_ROOT, 'pg') ?? '?';

  const cluster = await startPostgresCluster({ durable: true });
  const admin = new pg.Client({ connectionString: cluster.superuserUrl });
  const dirs: string[] = [];
  const dbUrl = (user: string, database: string): string =>
    `postgres://${user}@localhost/${database}?host=${encodeURIComponent(cluster.dir)}&port=${cluster.port}`;
  try {
    await admin.connect();
    console.log(`  emmett-postgresql ${emmettVersion} (emmett ${emmettCore}, dumbo ${dumboVersion}); node-postgres ${pgVersion} for all three`);
    console.log(`  one cluster for both PostgreSQL systems, Unix socket in ${cluster.dir}: ${await serverDescription(admin)}`);
    console.log(`  JSONL workspaces in ${tmpdir()} (the cluster's file system too); one write + fdatasync per append`);
    console.log(
      `  events: note.recorded {text} with ${NOTE_TEXT_LENGTH}-char text (data ${Buffer.byteLength(JSON.stringify({ text: 'x'.repeat(NOTE_TEXT_LENGTH) }))} bytes of JSON; Baton's stored line ${rawLine().length} bytes); ` +
        `singles cycle over ${SINGLE_STREAMS} streams, batches over ${BATCH_STREAMS} others (one stream per batch), expected versions tracked client-side for every append; ` +
        `read all: Baton store.read(), Emmett readMessagesBatch (global position, ${formatNumber(READ_PAGE)} a page)`,
    );
    console.log(
      `  ${rounds} round(s), the order reversed every other round; each system in its own process, each run on a fresh store ` +
        `(a new database for the PostgreSQL ones, CHECKPOINT before each); the table shows each system's best round. ` +
        `[disk probe]: ${FSYNC_PROBE} raw ${rawLine().length}-byte O_APPEND write+fdatasync just before the run, to show the disk's pace at that moment`,
    );

    // The disk's pace just before each run, so a run slowed by the shared machine shows as such:
    // one small O_APPEND write + fdatasync, what a single JSONL append ends in. (PostgreSQL's
    // commit also waits for an fdatasync, but into preallocated WAL segments, with no file-size
    // change to journal, so it can run faster than this probe.)
    const fsyncDir = makeTempDir('compare-fsync');
    dirs.push(fsyncDir);
    const fsyncRate = (): number => {
      const loop = rawAppendLoop(join(fsyncDir, 'raw.bin'), rawLine(), FSYNC_PROBE);
      return rate(loop.events, loop.ms);
    };

    const base: SystemName[] = ['baton-pg', 'emmett-pg', 'baton-jsonl'];
    const ran = new Map<SystemName, ComparisonChildResult[]>(base.map((s) => [s, []]));
    const bytesPerEvent = new Map<SystemName, number>();
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 === 1 ? base : [...base].reverse();
      for (const system of order) {
        let target: string;
        const database = `cmp_${system.replace(/-/g, '_')}_${round}`;
        if (system === 'baton-jsonl') {
          target = makeTempDir(`compare-jsonl-${round}`);
          dirs.push(target);
        } else {
          await admin.query(`CREATE DATABASE ${database} OWNER baton_app`);
          target = system === 'baton-pg' ? `${dbUrl('baton_app', database)}&workspace_id=bench` : dbUrl('baton_app', database);
          // Start each PostgreSQL run from a clean checkpoint, so none pays for the WAL of another.
          await admin.query('CHECKPOINT');
        }
        process.stdout.write(`  round ${round} ${LABELS[system].padEnd(11)}: [disk probe ${formatNumber(fsyncRate())} append+fdatasync/s]`);
        const out = await runChild('store-comparison-child', [system, target, String(single), String(batches)]);
        const result = lastJsonLine<ComparisonChildResult>(out);
        ran.get(system)?.push(result);
        const parts = (['single', 'batch', 'read'] as const).map((k) => `${k} ${formatNumber(rate(result[k].events, result[k].ms))}/s`).join(', ');
        console.log(` ${parts}; peak RSS ${formatNumber(result.maxRssMB)} MB${result.notes.length > 0 ? '; ' + result.notes.join('; ') : ''}`);
        if (system !== 'baton-jsonl') {
          const inspect = new pg.Client({ connectionString: dbUrl('postgres', database) });
          await inspect.connect();
          try {
            const bytes =
              system === 'baton-pg'
                ? await tableBytes(inspect, 'baton_events')
                : (await tableBytes(inspect, 'emt_messages')) + (await tableBytes(inspect, 'emt_streams'));
            bytesPerEvent.set(system, bytes / total);
          } finally {
            await inspect.end();
          }
          await admin.query(`DROP DATABASE ${database}`);
        }
      }
    }

    const roundsOf = (system: SystemName): ComparisonChildResult[] => ran.get(system) ?? [];
    const bestOf = (system: SystemName): Works => ({
      single: best(roundsOf(system), 'single'),
      batch: best(roundsOf(system), 'batch'),
      read: best(roundsOf(system), 'read'),
    });
    const children: Record<SystemName, Works> = { 'baton-pg': bestOf('baton-pg'), 'baton-jsonl': bestOf('baton-jsonl'), 'emmett-pg': bestOf('emmett-pg') };
    console.log(
      `  on disk in PostgreSQL after the run (tables + indexes, before any VACUUM): Baton ${formatNumber(bytesPerEvent.get('baton-pg') ?? 0)} bytes/event, ` +
        `Emmett ${formatNumber(bytesPerEvent.get('emmett-pg') ?? 0)} bytes/event`,
    );
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
        baton: { value: batonPg, unit: 'events/s', detail: `Baton on PostgreSQL, best of ${rounds}` },
        limit: {
          value: emmett,
          unit: 'events/s',
          detail: `Emmett ${emmettVersion} on the same server, best of ${rounds} (the reference, not a machine limit)`,
        },
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
    for (const dir of dirs) removeTempDir(dir);
  }
}
