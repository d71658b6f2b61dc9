import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism, loadavg } from 'node:os';
import { formatNumber, type BenchResult } from './report.js';
import { makeTempDir, median, PROJECT_ROOT, removeTempDir } from './support.js';

/**
 * `baton import lumenflow` on a generated LumenFlow repository of issue 17's size: 1,400 WU YAML
 * files, 50 initiative files, 3,000 wu-events.jsonl lines, a done stamp per done WU, lane
 * definitions in workspace.yaml. Two rows: the first import into an empty workspace (≤ 3 s) and an
 * unchanged re-run (≤ 1 s, appends nothing), each against `node -e 0` measured in the same run.
 */
export const IMPORT_LUMENFLOW_FIRST = {
  name: 'import-lumenflow-first',
  work: '`baton import lumenflow`, first run: 1,400 WUs, 50 initiatives, 3,000 wu-events lines',
  maxMs: 3000,
};
export const IMPORT_LUMENFLOW_RERUN = {
  name: 'import-lumenflow-rerun',
  work: '`baton import lumenflow`, unchanged re-run of the same repository (appends nothing)',
  maxMs: 1000,
};

const WUS = 1400;
const INITIATIVES = 50;
const EVENT_LINES = 3000;
const LANES = ['Framework: Core', 'Framework: CLI', 'Docs', 'Ops', 'Content: Site', 'Experience: Web'];
const BATON_BIN = join(PROJECT_ROOT, 'dist', 'bin', 'baton.js');

function initiativeId(i: number): string {
  return i === 0 ? 'INIT-MCP' : i === 1 ? 'INIT-MCP-FULL' : `INIT-${String(i).padStart(3, '0')}`;
}

/** Status of WU n: most are done (as in a mature repository), the rest spread over the other statuses. */
function statusOf(n: number): string {
  if (n <= 1000) return 'done';
  return ['ready', 'in_progress', 'blocked', 'todo', 'backlog'][n % 5]!;
}

export function generateLumenflowRepository(dir: string): void {
  const put = (rel: string, text: string): void => writeFileSync(join(dir, rel), text);
  for (const folder of ['docs/operations/tasks/wu', 'docs/operations/tasks/initiatives', '.lumenflow/stamps', '.lumenflow/state'])
    mkdirSync(join(dir, folder), { recursive: true });
  put(
    'workspace.yaml',
    `software_delivery:\n  lanes:\n    definitions:\n${LANES.map((l, i) => `      - name: "${l}"\n        wip_limit: ${1 + (i % 3)}\n        lock_policy: ${i % 2 === 0 ? 'all' : 'active'}\n        code_paths: ["packages/${i}/**"]\n`).join('')}  orchestration:\n    max_active_workers: 4\n`,
  );
  for (let i = 0; i < INITIATIVES; i++) {
    const wus = Array.from({ length: WUS / INITIATIVES }, (_, k) => `WU-${i * (WUS / INITIATIVES) + k + 1}`);
    put(
      `docs/operations/tasks/initiatives/${initiativeId(i)}.yaml`,
      `id: ${initiativeId(i)}\nslug: initiative-${i}\ntitle: Initiative ${i}\nstatus: ${i < 30 ? 'done' : 'in_progress'}\npriority: P${i % 4}\nowner: team-${i % 7}\ncreated: 2026-0${1 + (i % 9)}-01\ntarget_date: 2026-12-31\nlanes: [${LANES.slice(
        0,
        3,
      )
        .map((l) => `"${l}"`)
        .join(
          ', ',
        )}]\nphases:\n  - id: 1\n    title: First\n    status: done\n  - id: 2\n    title: Second\n    status: ${i < 30 ? 'done' : 'in_progress'}\nwus: [${wus.join(', ')}]\n`,
    );
  }
  for (let n = 1; n <= WUS; n++) {
    const initiative = initiativeId(Math.floor((n - 1) / (WUS / INITIATIVES)));
    const status = statusOf(n);
    put(
      `docs/operations/tasks/wu/WU-${n}.yaml`,
      [
        `id: WU-${n}`,
        `title: Work unit ${n} of the generated repository`,
        `lane: "${LANES[n % LANES.length]}"`,
        `type: ${['feature', 'bug', 'documentation', 'refactor'][n % 4]}`,
        `status: ${status}`,
        `priority: P${n % 4}`,
        `initiative: ${initiative}`,
        `created: 2026-03-0${1 + (n % 9)}`,
        'description: |',
        `  Generated work unit ${n}: change the module, add the tests, update the docs.`,
        '  Keep the public surface stable.',
        'acceptance:',
        '  - the tests pass',
        '  - the docs say what changed',
        `code_paths: ["packages/${n % LANES.length}/src/module-${n}/**"]`,
        ...(n > 1 && n % 3 === 0 ? [`dependencies: [WU-${n - 1}]`] : []),
        ...(status === 'blocked' ? ['blocked_reason: waiting on review'] : []),
        '',
      ].join('\n'),
    );
    if (status === 'done') put(`.lumenflow/stamps/WU-${n}.done`, n % 50 === 0 ? 'done by hand\n' : `WU WU-${n} \u2014 Work unit ${n}\nCompleted: 2026-06-01\n`);
  }
  const lines: string[] = [];
  const base = Date.parse('2026-06-01T00:00:00Z');
  const t = (n: number, k: number): string => new Date(base + (n * 10 + k) * 60_000).toISOString();
  for (let n = 1; n <= WUS; n++) {
    const status = statusOf(n);
    lines.push(
      JSON.stringify({ type: 'claim', wuId: `WU-${n}`, timestamp: t(n, 0), lane: LANES[n % LANES.length], title: `Work unit ${n}`, sessionId: `s-${n}` }),
    );
    if (status === 'done') lines.push(JSON.stringify({ type: 'complete', wuId: `WU-${n}`, timestamp: t(n, 2) }));
    else if (status === 'blocked') lines.push(JSON.stringify({ type: 'block', wuId: `WU-${n}`, timestamp: t(n, 2), reason: 'waiting on review' }));
    else lines.push(JSON.stringify({ type: 'checkpoint', wuId: `WU-${n}`, timestamp: t(n, 1), note: 'progress', progress: '50%', nextSteps: 'finish' }));
  }
  // The rest: more checkpoints on the WUs in progress.
  const inProgress = Array.from({ length: WUS }, (_, i) => i + 1).filter((n) => statusOf(n) === 'in_progress');
  for (let i = 0; lines.length < EVENT_LINES; i++) {
    const n = inProgress[i % inProgress.length]!;
    lines.push(JSON.stringify({ type: 'checkpoint', wuId: `WU-${n}`, timestamp: t(WUS + i, 0), note: `checkpoint ${i}`, sessionId: `s-${n}` }));
  }
  put('.lumenflow/state/wu-events.jsonl', `${lines.slice(0, EVENT_LINES).join('\n')}\n`);
}

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
    generateLumenflowRepository(repo);
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
