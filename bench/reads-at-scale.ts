import { availableParallelism, loadavg } from 'node:os';
import { LARGE_SHAPE, REAL_SHAPE, type RepoShape } from './lumenflow-repo.js';
import { nodeReferenceLimit } from './node-reference.js';
import { baton, envelopeOf, runNode, scaleWorkspace, type ScaleWorkspace, type Timed } from './reads-at-scale-workspace.js';
import { formatNumber, type BenchResult } from './report.js';
import { median } from './support.js';

/**
 * Reads at real scale: the commands an agent repeats, each a real process of the built CLI, on a
 * LumenFlow repository shaped like real ones (lumenflow-repo.ts) imported the way a user imports it
 * (reads-at-scale-workspace.ts), at two sizes: REAL (1,400 WUs, ~6,500 events) and LARGE (20,000
 * WUs, ~200,000 events). `status`, `orchestrate status` of the initiative of 70, `wu list`, `wu list
 * --state eligible`, `wu show` and `wu claim` (a fresh eligible WU per run, for a session started for
 * it, released afterwards; neither timed), each without and with the WU YAML probe, after a warm-up
 * run (snapshots and the probe's cache in place), against `node -e 0` measured between them. Each
 * answer is checked against what the generator made. LARGE adds the import's two rows.
 */
export const READS_AT_SCALE = { name: 'reads-at-scale', work: 'status, orchestrate status, wu list, wu show, wu claim on real-shaped LumenFlow repositories' };
export const IMPORT_LARGE = {
  first: { name: 'reads-large-import-first', maxMs: 20_000 },
  rerun: { name: 'reads-large-import-rerun', maxMs: 2_000 },
};

type RowKey = 'status' | 'orchestrate-status' | 'wu-list' | 'wu-list-eligible' | 'wu-show' | 'wu-claim';
const ROWS: readonly RowKey[] = ['status', 'orchestrate-status', 'wu-list', 'wu-list-eligible', 'wu-show', 'wu-claim'];
type Variant = 'off' | 'on';
const VARIANTS: readonly Variant[] = ['off', 'on'];

export interface ScaleSize {
  key: 'real' | 'large';
  shape: RepoShape;
  /** × `node -e 0` allowed per row; null: reported without a budget. */
  budgets: Record<RowKey, number | null>;
  /** Measured runs per row when `--runs` does not say (full, --quick). */
  runs: { full: number; quick: number };
}

export const REAL_SIZE: ScaleSize = {
  key: 'real',
  shape: REAL_SHAPE,
  budgets: { status: 2, 'orchestrate-status': 2, 'wu-list': 2, 'wu-list-eligible': 2, 'wu-show': 2, 'wu-claim': 2 },
  runs: { full: 9, quick: 3 },
};
export const LARGE_SIZE: ScaleSize = {
  key: 'large',
  shape: LARGE_SHAPE,
  budgets: { status: 3, 'orchestrate-status': 2, 'wu-list': null, 'wu-list-eligible': 2, 'wu-show': 2, 'wu-claim': 2 },
  runs: { full: 2, quick: 1 },
};

interface Command {
  args: (dir: string) => string[];
  /** What a correct answer holds; throws naming what is wrong. */
  check: (out: Timed) => void;
}

function mustHold(ok: boolean, what: string): void {
  if (!ok) throw new Error(`wrong answer: ${what}`);
}

function commands(ws: ScaleWorkspace): Record<Exclude<RowKey, 'wu-claim'>, Command> {
  const repo = ws.repo;
  const shown = repo.inProgress[Math.floor(repo.inProgress.length / 2)]!;
  return {
    status: {
      args: (dir) => baton(dir, 'status'),
      check: (out) => {
        const e = envelopeOf<{ type: string; baton?: { initiatives?: { initiative: string }[] } }>(out);
        const listed = (e.baton?.initiatives ?? []).map((i) => i.initiative);
        mustHold(
          e.type === 'orchestration_status' && listed.includes(repo.activeInitiative),
          `status lists ${listed.join(', ')}, not ${repo.activeInitiative}`,
        );
      },
    },
    'orchestrate-status': {
      args: (dir) => baton(dir, 'orchestrate', 'status', repo.activeInitiative),
      check: (out) => {
        const e = envelopeOf<{ initiative: string; wus: unknown[] }>(out);
        const size = repo.initiatives.find((i) => i.id === repo.activeInitiative)!.wus;
        mustHold(
          e.initiative === repo.activeInitiative && e.wus.length === size,
          `orchestrate status of ${repo.activeInitiative} has ${e.wus.length} rows, not ${size}`,
        );
      },
    },
    'wu-list': {
      args: (dir) => baton(dir, 'wu', 'list'),
      check: (out) => {
        const e = envelopeOf<{ count: number; wus: unknown[] }>(out);
        mustHold(e.count === repo.shape.wus && e.wus.length === repo.shape.wus, `wu list has ${e.count} WUs, not ${repo.shape.wus}`);
      },
    },
    'wu-list-eligible': {
      args: (dir) => baton(dir, 'wu', 'list', '--state', 'eligible'),
      check: (out) => {
        const got = envelopeOf<{ wus: { wu_id: string }[] }>(out).wus.map((w) => w.wu_id);
        const missing = repo.eligible.filter((id) => !got.includes(id));
        const extra = got.filter((id) => !repo.eligible.includes(id));
        mustHold(
          missing.length === 0 && extra.length === 0,
          `wu list --state eligible misses ${missing.join(', ') || 'none'} and adds ${extra.join(', ') || 'none'}`,
        );
      },
    },
    'wu-show': {
      args: (dir) => baton(dir, 'wu', 'show', shown),
      check: (out) => {
        const e = envelopeOf<{ wu_id: string; orchestration_state: string }>(out);
        mustHold(e.wu_id === shown && e.orchestration_state === 'active', `wu show ${shown} answered ${e.wu_id} (${e.orchestration_state})`);
      },
    },
  };
}

/** One `wu claim` run: a session started for it and the claim released afterwards (neither timed); the claim's wall time. */
function claimOnce(dir: string, wu: string, run: number): number {
  const session = envelopeOf<{ session: { id: string } }>(
    runNode(baton(dir, 'session', 'start', '--agent-identity', `bench:claimer:${run}`, '--role', 'implementer')),
  ).session.id;
  const claim = runNode(baton(dir, 'wu', 'claim', wu, '--session', session));
  const e = envelopeOf<{ type: string; wu_id: string; action: string }>(claim);
  mustHold(e.type === 'wu_lifecycle' && e.action === 'claim' && e.wu_id === wu, `wu claim ${wu} answered ${claim.stdout.slice(0, 200)}`);
  runNode(baton(dir, 'wu', 'release', wu, '--session', session));
  return claim.ms;
}

type Series = Record<RowKey, Record<Variant, number[]>>;

/** A warm-up pass (answers checked), then `runs` passes: per row, `node -e 0` and the row without and with the probe. */
function measure(ws: ScaleWorkspace, runs: number): { series: Series; nodeMs: number[]; firstProbeMs: number } {
  const cmds = commands(ws);
  const dirOf = (v: Variant): string => (v === 'off' ? ws.off : ws.on);
  if (ws.repo.claimable.length < runs + 1) throw new Error(`the fixture has ${ws.repo.claimable.length} claimable WUs, ${runs + 1} are needed`);
  // The first probed run parses every WU file (the probe's cache); then every answer is checked once.
  const firstProbeMs = runNode(cmds['orchestrate-status'].args(ws.on)).ms;
  for (const key of Object.keys(cmds) as Exclude<RowKey, 'wu-claim'>[]) for (const v of VARIANTS) cmds[key].check(runNode(cmds[key].args(dirOf(v))));
  for (const v of VARIANTS) claimOnce(dirOf(v), ws.repo.claimable[0]!, 0);
  const series = Object.fromEntries(ROWS.map((r) => [r, { off: [], on: [] }])) as unknown as Series;
  const nodeMs: number[] = [];
  for (let i = 1; i <= runs; i++) {
    for (const row of ROWS) {
      nodeMs.push(runNode(['-e', '0']).ms);
      for (const v of VARIANTS) {
        series[row][v].push(row === 'wu-claim' ? claimOnce(dirOf(v), ws.repo.claimable[i]!, i) : runNode(cmds[row].args(dirOf(v))).ms);
      }
    }
  }
  return { series, nodeMs, firstProbeMs };
}

const WORDS: Record<RowKey, string> = {
  status: '`baton status`',
  'orchestrate-status': '`orchestrate status` of the initiative of 70 WUs',
  'wu-list': '`wu list`',
  'wu-list-eligible': '`wu list --state eligible`',
  'wu-show': '`wu show` of a WU in progress',
  'wu-claim': '`wu claim` of an eligible WU (one durable append)',
};

function load(): string {
  return `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${availableParallelism()} cores`;
}

function row(size: ScaleSize, ws: ScaleWorkspace, key: RowKey, v: Variant, times: readonly number[], nodeMs: readonly number[], notes: string[]): BenchResult {
  const node = median(nodeMs);
  const value = median(times);
  const budget = size.budgets[key];
  const fixture = `${formatNumber(ws.repo.shape.wus)} WUs, ${formatNumber(ws.events)} events`;
  return {
    name: `reads-${size.key}-${key}${v === 'on' ? '-yaml-probe' : ''}`,
    work: `${WORDS[key]}, ${size.key} size (${fixture})${v === 'on' ? ', YAML probe on' : ''}`,
    baton: {
      value,
      unit: 'ms',
      detail: `median of ${times.length} runs (min ${formatNumber(Math.min(...times), 1)}; ${times.map((t) => formatNumber(t)).join(', ')})`,
    },
    limit: nodeReferenceLimit(node, nodeMs),
    ratio: value / node,
    floor: budget === null ? 'no budget (× node -e 0 reported)' : `≤ ${budget}× node -e 0`,
    pass: budget === null || value / node <= budget,
    notes,
  };
}

function importRows(ws: ScaleWorkspace, nodeMs: readonly number[]): BenchResult[] {
  const node = median(nodeMs);
  const limit = nodeReferenceLimit(node, nodeMs);
  const of = `${formatNumber(ws.repo.shape.wus)} WUs, ${formatNumber(ws.repo.historyLines)} wu-events lines, ${formatNumber(ws.repo.stamps)} stamps`;
  const one = (spec: { name: string; maxMs: number }, ms: number, work: string, detail: string): BenchResult => ({
    name: spec.name,
    work,
    baton: { value: ms, unit: 'ms', detail },
    limit,
    ratio: ms / node,
    ratioLabel: 'baton / node -e 0',
    floor: `≤ ${formatNumber(spec.maxMs)} ms`,
    pass: ms <= spec.maxMs,
    notes: [],
  });
  return [
    one(
      IMPORT_LARGE.first,
      ws.importFirstMs,
      `\`baton import lumenflow\`, first run after \`baton init\`: ${of}`,
      `one run, ${formatNumber(ws.events)} events appended`,
    ),
    one(IMPORT_LARGE.rerun, ws.importRerunMs, '`baton import lumenflow`, unchanged re-run of the same repository', 'one run, 0 events appended'),
  ];
}

/** The rows side by side, as a budget table: each command without and with the probe, against `node -e 0`. */
function printTable(size: ScaleSize, ws: ScaleWorkspace, results: readonly BenchResult[], node: number, seconds: number): void {
  const r = ws.repo;
  console.log(
    `  ${size.key}: ${formatNumber(r.shape.wus)} WUs in ${r.initiatives.length} initiatives, ${formatNumber(r.historyLines)} history lines, ${formatNumber(r.stamps)} stamps → ` +
      `${formatNumber(ws.events)} events, log ${formatNumber(ws.logBytes / 1048576, 1)} MB, work-unit snapshot ${formatNumber(ws.snapshotBytes / 1048576, 1)} MB; node -e 0 ${formatNumber(node)} ms; ${load()}; ${formatNumber(seconds)} s in all`,
  );
  const cell = (res: BenchResult | undefined): string => (res ? `${formatNumber(res.baton.value)} ms ${res.ratio.toFixed(2)}×`.padEnd(18) : '');
  console.log(`  ${'command'.padEnd(28)} ${'probe off'.padEnd(18)} ${'YAML probe on'.padEnd(18)} budget`);
  for (const key of ROWS) {
    const off = results.find((x) => x.name === `reads-${size.key}-${key}`);
    const on = results.find((x) => x.name === `reads-${size.key}-${key}-yaml-probe`);
    const budget = size.budgets[key];
    console.log(`  ${key.padEnd(28)} ${cell(off)} ${cell(on)} ${budget === null ? '—' : `≤ ${budget}×`}`);
  }
}

export async function benchReadsAtScale(size: ScaleSize, options: { runs: number }): Promise<BenchResult[]> {
  const started = performance.now();
  const ws = scaleWorkspace(size.shape);
  const { series, nodeMs, firstProbeMs } = measure(ws, options.runs);
  const results: BenchResult[] = [];
  for (const key of ROWS) {
    for (const v of VARIANTS) {
      const notes = key === 'status' && v === 'off' ? [load()] : [];
      if (key === 'orchestrate-status' && v === 'on')
        notes.push(`the probe's first run (parses all ${formatNumber(ws.repo.shape.wus)} WU files): ${formatNumber(firstProbeMs)} ms, not counted`);
      if (key === 'status' && v === 'off' && size.key === 'real')
        notes.push(
          `made by \`baton init\` (${formatNumber(ws.initMs)} ms) + \`import lumenflow\`: ${formatNumber(ws.importFirstMs)} ms, unchanged re-run ${formatNumber(ws.importRerunMs)} ms`,
        );
      results.push(row(size, ws, key, v, series[key][v], nodeMs, notes));
    }
  }
  if (size.key === 'large') results.push(...importRows(ws, nodeMs));
  printTable(size, ws, results, median(nodeMs), (performance.now() - started) / 1000);
  return results;
}
