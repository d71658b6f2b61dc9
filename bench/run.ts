/**
 * `npm run bench`: every performance budget of the architecture spec that the foundation owns.
 * Each benchmark prints Baton's figure, the machine's own limit for the same work measured in the
 * same run, their ratio, and the spec's floor with PASS/FAIL; a summary table closes the run.
 *
 *   node --expose-gc dist/bench/run.js [--quick] [--log-events=N] [--runs=N] [NAME…]
 *
 * NAME (any part of a benchmark's name) runs only the matching benchmarks. `--quick` is a smoke
 * run: fewer events, a 100,000-event log. `--runs=N` (or `--runs N`) sets the measured runs per
 * row of reads-at-scale-real and reads-at-scale-large. Exit code 1 when any figure misses its
 * floor or fails.
 */
import { cpus, tmpdir, totalmem } from 'node:os';
import { benchAppendBatch, APPEND_BATCH } from './append-batch.js';
import { AUDIT, benchAudit } from './audit.js';
import { benchAppendConcurrent, APPEND_CONCURRENT } from './append-concurrent.js';
import { benchAppendSingle, APPEND_SINGLE } from './append-single.js';
import { generateLog, type LogFixture } from './log-fixture.js';
import {
  benchPostgresAppendBatch,
  benchPostgresAppendSingle,
  POSTGRES_APPEND_BATCH,
  POSTGRES_APPEND_SINGLE,
  postgresBenchSkipReason,
} from './postgres-append.js';
import { benchReplay, REPLAY } from './replay.js';
import { formatNumber, printHeader, printResult, printSummary, type BenchResult } from './report.js';
import { benchShortCommand, benchShortInbox, SHORT_COMMAND, SHORT_INBOX } from './short-command.js';
import { benchStoreComparison, STORE_COMPARISON, storeComparisonSkipReason } from './store-comparison.js';
import { childCommand, collectGarbage, COMPILED, makeTempDir, mb, NOTE_TEXT_LENGTH, rawLine, removeAllTempDirs, removeTempDir } from './support.js';
import { benchVerify, VERIFY } from './verify.js';
import { benchMemWatch, MEM_WATCH } from './mem-watch.js';
import { benchWorkUnitsStatus, WU_STATUS } from './work-units-status.js';
import { benchStatus, STATUS } from './status.js';
import { benchHookPostToolUse, benchHookPreToolUse, benchMcpStatus, HOOK_POST_TOOL_USE, HOOK_PRE_TOOL_USE, MCP_STATUS } from './integrations.js';
import { benchServeDashboard, SERVE_RENDER, serveBenchSkipReason } from './serve-dashboard.js';
import { benchImportLumenflow } from './import-lumenflow.js';
import { benchLumenflowScale, LUMENFLOW_STATUS } from './lumenflow-scale.js';
import { benchReadsAtScale, LARGE_SIZE, READS_AT_SCALE, REAL_SIZE, type ScaleSize } from './reads-at-scale.js';

interface Sizes {
  /** append-single, -concurrent, -batch: rounds (the best is reported, every one printed). */
  appendRounds: number;
  singleEvents: number;
  perWorker: number;
  batches: number;
  logEvents: number;
  repeats: number;
  commandRuns: number;
  /** store-comparison: single-event appends, and batches of 100, per system; rounds (best kept). */
  compareSingle: number;
  compareBatches: number;
  compareRounds: number;
  /** reads-at-scale: measured runs per row (`--runs`); undefined: each size's own default. */
  readsRuns: number | undefined;
  quick: boolean;
}

const FULL: Sizes = {
  appendRounds: 3,
  singleEvents: 3_000,
  perWorker: 500,
  batches: 300,
  logEvents: 1_000_000,
  repeats: 2,
  commandRuns: 15,
  compareSingle: 10_000,
  compareBatches: 1_000,
  compareRounds: 3,
  readsRuns: undefined,
  quick: false,
};
const QUICK: Sizes = {
  appendRounds: 1,
  singleEvents: 500,
  perWorker: 100,
  batches: 50,
  logEvents: 100_000,
  repeats: 1,
  commandRuns: 7,
  compareSingle: 1_000,
  compareBatches: 100,
  compareRounds: 1,
  readsRuns: undefined,
  quick: true,
};

function parseArgs(argv: readonly string[]): { sizes: Sizes; quick: boolean; filters: string[] } {
  let quick = false;
  let logEvents: number | undefined;
  let runs: number | undefined;
  const filters: string[] = [];
  const args = [...argv];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--quick') quick = true;
    else if (arg === '--runs' || arg.startsWith('--runs=')) {
      runs = Number(arg === '--runs' ? args[++i] : arg.slice('--runs='.length));
      if (!Number.isSafeInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');
    } else if (arg.startsWith('--log-events=')) {
      logEvents = Number(arg.slice('--log-events='.length));
      if (!Number.isSafeInteger(logEvents) || logEvents < 1) throw new Error('--log-events must be a positive integer');
    } else if (arg === '--help' || arg === '-h') {
      console.log('usage: node --expose-gc dist/bench/run.js [--quick] [--log-events=N] [--runs=N] [NAME…]');
      console.log(`benchmarks: ${BENCHMARKS.map((b) => b.name).join(', ')}`);
      process.exit(0);
    } else if (arg.startsWith('-')) throw new Error(`unknown option ${arg}`);
    else filters.push(arg);
  }
  const sizes = { ...(quick ? QUICK : FULL) };
  if (logEvents !== undefined) sizes.logEvents = logEvents;
  sizes.readsRuns = runs;
  return { sizes, quick, filters };
}

interface Benchmark {
  name: string;
  work: string;
  needsLog: boolean;
  /** Why it cannot run on this machine (printed, not counted as a failure), or undefined. */
  skip?: () => string | undefined;
  /** One result, or several for a benchmark that measures more than one work (store-comparison). */
  run(sizes: Sizes, log: () => LogFixture): Promise<BenchResult | BenchResult[]>;
}

const BENCHMARKS: readonly Benchmark[] = [
  { name: APPEND_SINGLE.name, work: APPEND_SINGLE.work, needsLog: false, run: (s) => benchAppendSingle({ events: s.singleEvents, rounds: s.appendRounds }) },
  {
    name: APPEND_CONCURRENT.name,
    work: APPEND_CONCURRENT.work,
    needsLog: false,
    run: (s) => benchAppendConcurrent({ perWorker: s.perWorker, rounds: s.appendRounds }),
  },
  { name: APPEND_BATCH.name, work: APPEND_BATCH.work, needsLog: false, run: (s) => benchAppendBatch({ batches: s.batches, rounds: s.appendRounds }) },
  { name: REPLAY.name, work: REPLAY.work, needsLog: true, run: (s, log) => benchReplay(log(), { repeats: s.repeats }) },
  { name: VERIFY.name, work: VERIFY.work, needsLog: true, run: (s, log) => benchVerify(log(), { repeats: s.repeats }) },
  { name: SHORT_COMMAND.name, work: SHORT_COMMAND.work, needsLog: false, run: (s) => benchShortCommand({ runs: s.commandRuns }) },
  { name: SHORT_INBOX.name, work: SHORT_INBOX.work, needsLog: false, run: (s) => benchShortInbox({ runs: s.commandRuns }) },
  { name: MEM_WATCH.name, work: MEM_WATCH.work, needsLog: false, run: (s) => benchMemWatch({ signals: s.commandRuns * 2 }) },
  {
    name: WU_STATUS.name,
    work: WU_STATUS.work,
    needsLog: false,
    run: (s) => benchWorkUnitsStatus({ events: Math.min(100_000, s.logEvents), runs: s.commandRuns }),
  },
  // Its own log (it appends to it): --log-events sets its size like the shared one's.
  { name: STATUS.name, work: STATUS.work, needsLog: false, run: (s) => benchStatus({ events: s.logEvents, runs: s.commandRuns }) },
  // Both rows of `baton import lumenflow` (first run, unchanged re-run) on one generated repository.
  {
    name: 'import-lumenflow',
    work: 'import of a generated LumenFlow repository: first run and unchanged re-run (two rows)',
    needsLog: false,
    run: (s) => benchImportLumenflow({ rounds: s.appendRounds, nodeRuns: s.commandRuns }),
  },
  { name: HOOK_POST_TOOL_USE.name, work: HOOK_POST_TOOL_USE.work, needsLog: false, run: (s) => benchHookPostToolUse({ runs: s.commandRuns }) },
  { name: HOOK_PRE_TOOL_USE.name, work: HOOK_PRE_TOOL_USE.work, needsLog: false, run: (s) => benchHookPreToolUse({ runs: s.commandRuns }) },
  { name: MCP_STATUS.name, work: MCP_STATUS.work, needsLog: false, run: (s) => benchMcpStatus({ events: MCP_STATUS.events, runs: s.commandRuns }) },
  // Its own log and git repository: a 100,000-event log (at most --log-events) over 1,000 commits.
  { name: AUDIT.name, work: AUDIT.work, needsLog: false, run: (s) => benchAudit({ events: Math.min(100_000, s.logEvents), runs: Math.min(5, s.commandRuns) }) },
  // Issue 17 at LumenFlow's scale: status and orchestrate status without and with the YAML probe, and the snapshot's size (five rows).
  {
    name: LUMENFLOW_STATUS.name.replace(/-status$/, '-scale'),
    work: 'a 1,400-WU / 50-initiative repository: status, orchestrate status, snapshot size (five rows)',
    needsLog: false,
    run: (s) => benchLumenflowScale({ runs: s.commandRuns }),
  },
  // Reads on real-shaped LumenFlow repositories, 1,400 and 20,000 WUs (twelve rows each; LARGE adds the import's two).
  ...[REAL_SIZE, LARGE_SIZE].map((size: ScaleSize): Benchmark => ({
    name: `${READS_AT_SCALE.name}-${size.key}`,
    work: `${READS_AT_SCALE.work}: ${size.shape.wus.toLocaleString('en-US')} WUs`,
    needsLog: false,
    run: (s) => benchReadsAtScale(size, { runs: s.readsRuns ?? (s.quick ? size.runs.quick : size.runs.full) }),
  })),
  // Both rows of `baton serve` (first render, scrub) on one 100,000-event log.
  {
    name: SERVE_RENDER.name.replace(/-first-render$/, ''),
    work: 'the dashboard: first render and scrubbing (two rows)',
    needsLog: false,
    skip: serveBenchSkipReason,
    run: (s) => benchServeDashboard({ events: Math.min(100_000, s.logEvents) }),
  },
  {
    name: POSTGRES_APPEND_SINGLE.name,
    work: POSTGRES_APPEND_SINGLE.work,
    needsLog: false,
    skip: postgresBenchSkipReason,
    run: (s) => benchPostgresAppendSingle({ events: s.singleEvents }),
  },
  {
    name: POSTGRES_APPEND_BATCH.name,
    work: POSTGRES_APPEND_BATCH.work,
    needsLog: false,
    skip: postgresBenchSkipReason,
    run: (s) => benchPostgresAppendBatch({ batches: s.batches }),
  },
  {
    name: STORE_COMPARISON.name,
    work: STORE_COMPARISON.work,
    needsLog: false,
    skip: storeComparisonSkipReason,
    run: (s) => benchStoreComparison({ single: s.compareSingle, batches: s.compareBatches, rounds: s.compareRounds }),
  },
];

async function main(): Promise<void> {
  const { sizes, quick, filters } = parseArgs(process.argv.slice(2));
  const selected = BENCHMARKS.filter((b) => filters.length === 0 || filters.some((f) => b.name.includes(f)));
  if (selected.length === 0) throw new Error(`no benchmark matches ${filters.join(', ')} (have: ${BENCHMARKS.map((b) => b.name).join(', ')})`);

  const cpu = cpus();
  console.log(
    `baton bench${quick ? ' (--quick)' : ''}: node ${process.version}, ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ${formatNumber(mb(totalmem()))} MB RAM`,
  );
  console.log(
    `temp dir ${tmpdir()}; event lines ${rawLine().length} bytes (note text ${NOTE_TEXT_LENGTH} chars); children run ${childCommand('read-child').compiled ? 'compiled dist/ code with plain node' : 'bench/*.ts through tsx (dist/bench is missing or older)'}`,
  );
  if (!COMPILED) console.log('(running under tsx: the parent process is not the compiled bench)');

  let fixture: LogFixture | undefined;
  const log = (): LogFixture => {
    if (!fixture) {
      const dir = makeTempDir('log');
      process.stdout.write(`\n(generating a ${formatNumber(sizes.logEvents)}-event log…`);
      fixture = generateLog(dir, sizes.logEvents);
      console.log(` ${formatNumber(mb(fixture.bytes))} MB in ${fixture.segments} segment(s), ${formatNumber(fixture.generateMs)} ms; not measured)`);
    }
    return fixture;
  };

  const results: BenchResult[] = [];
  const failures: { name: string; error: string }[] = [];
  try {
    for (const bench of selected) {
      const skipped = bench.skip?.();
      if (skipped !== undefined) {
        printHeader(bench.name, bench.work);
        console.log(`  SKIPPED: ${skipped}`);
        continue;
      }
      if (bench.needsLog) log();
      printHeader(bench.name, bench.work);
      collectGarbage();
      try {
        const outcome = await bench.run(sizes, log);
        for (const result of Array.isArray(outcome) ? outcome : [outcome]) {
          if (Array.isArray(outcome)) console.log(`-- ${result.name}: ${result.work}`);
          results.push(result);
          printResult(result);
        }
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        failures.push({ name: bench.name, error: message });
        console.log(`  ERROR: ${message}`);
      }
    }
  } finally {
    if (fixture) removeTempDir(fixture.dir);
  }
  printSummary(results, failures);
  if (failures.length > 0 || results.some((r) => !r.pass)) process.exitCode = 1;
}

process.once('SIGINT', () => {
  removeAllTempDirs();
  process.exit(130);
});

try {
  await main();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  removeAllTempDirs();
}
