import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism, loadavg } from 'node:os';
import { generateLumenflowRepository, REAL_SHAPE } from './lumenflow-repo.js';
import { formatNumber, type BenchResult } from './report.js';
import { makeTempDir, median, PROJECT_ROOT, removeTempDir } from './support.js';

/**
 * `baton import lumenflow` on the real-shaped LumenFlow repository of LumenFlow's own size
 * (lumenflow-repo.ts, REAL_SHAPE: 1,400 WU YAML files, ~51 initiatives of 5–70 WUs, ~3,800
 * wu-events.jsonl lines, a stamp for ~95% of the done WUs, lanes with WIP limits). Two rows: the
 * first import into an empty workspace (≤ 3 s) and an unchanged re-run (≤ 1 s, appends nothing),
 * each against `node -e 0` measured in the same run.
 */
export const IMPORT_LUMENFLOW_FIRST = {
  name: 'import-lumenflow-first',
  work: '`baton import lumenflow`, first run: the real-shaped repository of 1,400 WUs (~6,500 events)',
  maxMs: 3000,
};
export const IMPORT_LUMENFLOW_RERUN = {
  name: 'import-lumenflow-rerun',
  work: '`baton import lumenflow`, unchanged re-run of the same repository (appends nothing)',
  maxMs: 1000,
};

const BATON_BIN = join(PROJECT_ROOT, 'dist', 'bin', 'baton.js');

function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('BATON_')) env[key] = value;
  return env;
}

/**
 * CPU time (user + system, ms) of the waited-for children so far, from /proc/self/stat (Linux;
 * null elsewhere): on a loaded machine the wall time stretches, the CPU time much less.
 */
function childrenCpuMs(): number | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of proc(5) (cutime, cstime), in clock ticks of 1/100 s.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return null;
  }
}

function timed(args: readonly string[], cwd: string): { ms: number; stdout: string } {
  const start = performance.now();
  const r = spawnSync(process.execPath, args, { cwd, env: cleanEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - start;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${String(r.stderr).trim() || String(r.stdout).slice(0, 500)}`);
  return { ms, stdout: r.stdout };
}

function cpuNote(cpu: readonly number[]): string[] {
  return cpu.length === 0 ? [] : [`CPU time (user + system) per run: median ${formatNumber(median(cpu))} ms (${cpu.map((m) => formatNumber(m)).join(', ')})`];
}

function appendedOf(stdout: string): number {
  return (JSON.parse(stdout.trim().split('\n').at(-1)!) as { appended: number }).appended;
}

/** `rounds` fresh workspaces: each imported once (first run) and again unchanged (re-run). */
export async function benchImportLumenflow(options: { rounds: number; nodeRuns: number }): Promise<BenchResult[]> {
  const repo = makeTempDir('lumenflow-repo');
  try {
    generateLumenflowRepository(repo, REAL_SHAPE);
    const firstMs: number[] = [];
    const rerunMs: number[] = [];
    const firstCpu: number[] = [];
    const rerunCpu: number[] = [];
    const cpuOf = (before: number | null, into: number[]): void => {
      const after = childrenCpuMs();
      if (before !== null && after !== null) into.push(after - before);
    };
    let firstAppended = 0;
    let rerunAppended = 0;
    for (let round = 0; round < options.rounds; round++) {
      rmSync(join(repo, '.baton'), { recursive: true, force: true });
      const cpu0 = childrenCpuMs();
      const first = timed([BATON_BIN, '--json', '--dir', repo, 'import', 'lumenflow', repo], repo);
      cpuOf(cpu0, firstCpu);
      firstMs.push(first.ms);
      firstAppended = appendedOf(first.stdout);
      const cpu1 = childrenCpuMs();
      const again = timed([BATON_BIN, '--json', '--dir', repo, 'import', 'lumenflow', repo], repo);
      cpuOf(cpu1, rerunCpu);
      rerunMs.push(again.ms);
      rerunAppended = appendedOf(again.stdout);
    }
    const nodeMs: number[] = [];
    for (let i = 0; i < options.nodeRuns; i++) nodeMs.push(timed(['-e', '0'], repo).ms);
    const node = median(nodeMs);
    const limit = { value: node, unit: 'ms', detail: `median of ${options.nodeRuns} runs of \`node -e 0\`` };
    const first = median(firstMs);
    const rerun = median(rerunMs);
    if (rerunAppended !== 0) throw new Error(`the unchanged re-run appended ${rerunAppended} event(s)`);
    return [
      {
        name: IMPORT_LUMENFLOW_FIRST.name,
        work: IMPORT_LUMENFLOW_FIRST.work,
        baton: {
          value: first,
          unit: 'ms',
          detail: `median of ${options.rounds} first imports into an empty workspace (${formatNumber(firstAppended)} events appended each)`,
        },
        limit,
        ratio: first / node,
        ratioLabel: 'baton / node -e 0',
        floor: `≤ ${formatNumber(IMPORT_LUMENFLOW_FIRST.maxMs)} ms`,
        pass: first <= IMPORT_LUMENFLOW_FIRST.maxMs,
        notes: [
          `runs: ${firstMs.map((m) => formatNumber(m)).join(', ')} ms`,
          ...cpuNote(firstCpu),
          `load average ${loadavg()
            .map((l) => l.toFixed(1))
            .join(' ')} on ${availableParallelism()} cores (wall times stretch with it)`,
        ],
      },
      {
        name: IMPORT_LUMENFLOW_RERUN.name,
        work: IMPORT_LUMENFLOW_RERUN.work,
        baton: { value: rerun, unit: 'ms', detail: `median of ${options.rounds} unchanged re-runs (0 events appended)` },
        limit,
        ratio: rerun / node,
        ratioLabel: 'baton / node -e 0',
        floor: `≤ ${formatNumber(IMPORT_LUMENFLOW_RERUN.maxMs)} ms`,
        pass: rerun <= IMPORT_LUMENFLOW_RERUN.maxMs,
        notes: [`runs: ${rerunMs.map((m) => formatNumber(m)).join(', ')} ms`, ...cpuNote(rerunCpu)],
      },
    ];
  } finally {
    removeTempDir(repo);
  }
}
