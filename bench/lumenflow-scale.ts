import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCatalog } from '../events/index.js';
import { workUnitsStateProjection } from '../projections/work-units/fold.js';
import { openStore } from '../src/store/open-store.js';
import { runProjection } from '../src/store/projection-runner.js';
import { ACTIVE_INITIATIVE, generateLumenflowScaleRepo, LUMENFLOW_SCALE, WU_DIR } from './lumenflow-scale-fixture.js';
import { formatNumber, type BenchResult } from './report.js';
import { BATON_BIN } from './short-command.js';
import { median, withTempDir } from './support.js';

/**
 * Issue 17's budgets at LumenFlow's real scale (lumenflow-scale-fixture.ts: 1,400 WUs, 50
 * initiatives, ~3,000 events, 1,423 WU YAML files of which 23 are malformed):
 *
 * - `baton status` and `orchestrate status INIT-42` (an initiative in flight) ≤ 3 × `node -e 0` (same run, interleaved),
 *   each without and with the WU YAML probe (`probes.wu_yaml_paths` naming the WU folder), with
 *   the snapshots and the probe's cache left by an earlier run, as an agent's repeated status is;
 * - the YAML probe says the malformed files' problems once (the first run), not on every status;
 * - the work-unit fold's snapshot is no bigger than the log (printed next to the state as plain JSON).
 */
export const LUMENFLOW_STATUS = { name: 'lumenflow-status', work: '`baton status` on a 1,400-WU / 50-initiative repository', maxRatio: 3 };
export const LUMENFLOW_ORCHESTRATE = {
  name: 'lumenflow-orchestrate-status',
  work: '`orchestrate status` on a 1,400-WU / 50-initiative repository',
  maxRatio: 3,
};
export const LUMENFLOW_SNAPSHOT = { name: 'lumenflow-snapshot-size', work: 'work-unit fold snapshot vs the log it covers, 1,400 WUs' };
const NOW = '2026-04-17T12:00:00Z';

function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('BATON_')) env[key] = value;
  return { ...env, BATON_NOW: NOW };
}

function runNode(args: readonly string[]): { ms: number; stdout: string; stderr: string } {
  const start = performance.now();
  const r = spawnSync(process.execPath, args, { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - start;
  if (r.status !== 0)
    throw new Error(`node ${args.slice(0, 6).join(' ')} exited with ${r.status}: ${String(r.stderr).trim().slice(0, 500) || String(r.stdout).slice(0, 500)}`);
  return { ms, stdout: r.stdout, stderr: r.stderr };
}

function logBytes(dir: string): number {
  const logDir = join(dir, '.baton', 'log');
  return readdirSync(logDir).reduce((sum, name) => sum + statSync(join(logDir, name)).size, 0);
}

interface Command {
  label: string;
  args: string[];
}

export async function benchLumenflowScale(options: { runs: number }): Promise<BenchResult[]> {
  return withTempDir('lumenflow', async (base) => {
    const off = join(base, 'probe-off');
    const fixture = await generateLumenflowScaleRepo(off);
    const on = join(base, 'probe-on');
    cpSync(off, on, { recursive: true });
    writeFileSync(join(on, '.baton', 'config.yaml'), `probes:\n  wu_yaml_paths:\n    - ${WU_DIR}\n`);

    const commands: Record<'status' | 'orchestrate', (dir: string) => string[]> = {
      status: (dir) => [BATON_BIN, '--dir', dir, '--json', 'status'],
      orchestrate: (dir) => [BATON_BIN, '--dir', dir, '--json', 'orchestrate', 'status', ACTIVE_INITIATIVE],
    };
    // First runs (not measured): snapshots, and the probe's cache; the probe warns here, once.
    const firstOff = runNode(commands.orchestrate(off));
    const firstOn = runNode(commands.orchestrate(on));
    const warningsFirst = firstOn.stderr.split('\n').filter((l) => l.includes('YAML probe')).length;
    runNode(commands.status(off));
    runNode(commands.status(on));
    const again = runNode(commands.orchestrate(on));
    const warningsAgain = again.stderr.split('\n').filter((l) => l.includes('YAML probe')).length;
    if (warningsFirst !== LUMENFLOW_SCALE.invalid)
      throw new Error(`the first probed status said ${warningsFirst} problems, expected ${LUMENFLOW_SCALE.invalid}`);
    if (warningsAgain !== 0) throw new Error(`a repeated status said ${warningsAgain} YAML problems again`);
    const head = (JSON.parse(runNode([BATON_BIN, '--dir', on, '--json', 'log', 'stats']).stdout.trim()) as { head_seq: number }).head_seq;
    if (head !== fixture.events) throw new Error(`the probe appended ${head - fixture.events} events to an unchanged repository`);

    const series: Command[] = [
      { label: 'status, probe off', args: commands.status(off) },
      { label: 'status, YAML probe on', args: commands.status(on) },
      { label: 'orchestrate status, probe off', args: commands.orchestrate(off) },
      { label: 'orchestrate status, YAML probe on', args: commands.orchestrate(on) },
    ];
    for (const c of series) runNode(c.args); // warm the file cache
    const nodeMs: number[] = [];
    const times = series.map(() => [] as number[]);
    for (let i = 0; i < options.runs; i++) {
      nodeMs.push(runNode(['-e', '0']).ms);
      series.forEach((c, k) => times[k]!.push(runNode(c.args).ms));
    }
    const node = median(nodeMs);
    const nodeMeasure = {
      value: node,
      unit: 'ms',
      detail: `median of ${options.runs} runs of \`node -e 0\`, interleaved (min ${formatNumber(Math.min(...nodeMs), 1)})`,
    };
    const timed = (k: number, row: typeof LUMENFLOW_STATUS, notes: string[]): BenchResult => {
      const wall = median(times[k]!);
      const ratio = wall / node;
      return {
        name: `${row.name}${k % 2 === 1 ? '-yaml-probe' : ''}`,
        work: `${row.work}, ${series[k]!.label}`,
        baton: { value: wall, unit: 'ms', detail: `median of ${options.runs} runs (min ${formatNumber(Math.min(...times[k]!), 1)})` },
        limit: nodeMeasure,
        ratio,
        floor: `≤ ${row.maxRatio}× node -e 0`,
        pass: ratio <= row.maxRatio,
        notes,
      };
    };
    const scale = `${formatNumber(LUMENFLOW_SCALE.wus)} WUs in ${LUMENFLOW_SCALE.initiatives} initiatives, ${formatNumber(fixture.events)} events, valid snapshots`;
    const probeNote = `YAML probe over ${formatNumber(LUMENFLOW_SCALE.wus + LUMENFLOW_SCALE.invalid)} files: first run ${formatNumber(firstOn.ms)} ms (parses all, ${warningsFirst} problems said) vs ${formatNumber(firstOff.ms)} ms without; a repeated run says ${warningsAgain} and appends nothing`;

    // The snapshot against the log, and against the state as plain JSON (what it was before).
    const snapshotBytes = statSync(join(off, '.baton', 'cache', 'work_units.snapshot.json')).size;
    const bytes = logBytes(off);
    const catalog = createCatalog();
    const store = await openStore({ workspace: off, config: { kind: 'jsonl' }, catalog, now: () => NOW, actor: 'bench' });
    let plainBytes: number;
    try {
      plainBytes = Buffer.byteLength(JSON.stringify((await runProjection(store, workUnitsStateProjection, { catalog, now: NOW })).state));
    } finally {
      await store.close();
    }
    const sizeRatio = snapshotBytes / bytes;
    return [
      timed(0, LUMENFLOW_STATUS, [scale]),
      timed(1, LUMENFLOW_STATUS, ['`baton status` runs no probe: the same work as without it, from the workspace that has it configured']),
      timed(2, LUMENFLOW_ORCHESTRATE, [scale]),
      timed(3, LUMENFLOW_ORCHESTRATE, [probeNote]),
      {
        name: LUMENFLOW_SNAPSHOT.name,
        work: LUMENFLOW_SNAPSHOT.work,
        baton: {
          value: snapshotBytes / 1024,
          unit: 'KiB',
          detail: `.baton/cache/work_units.snapshot.json (the state as plain JSON would be ${formatNumber(plainBytes / 1024)} KiB, ${formatNumber(plainBytes / bytes, 2)}× the log)`,
        },
        limit: { value: bytes / 1024, unit: 'KiB', detail: `the log it covers: ${formatNumber(fixture.events)} events` },
        ratio: sizeRatio,
        ratioLabel: 'snapshot / log',
        floor: '≤ 1× the log',
        pass: sizeRatio <= 1,
        notes: [],
      },
    ];
  });
}
