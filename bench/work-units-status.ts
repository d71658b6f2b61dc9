import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createCatalog } from '../events/index.js';
import { workUnitsStateProjection } from '../projections/work-units/index.js';
import { openStore } from '../src/store/open-store.js';
import { runProjection } from '../src/store/projection-runner.js';
import { formatNumber, rate, type BenchResult } from './report.js';
import { median, withTempDir } from './support.js';
import { BATON_BIN } from './short-command.js';

/**
 * Issue 4's budgets: `orchestrate status` for an initiative of 1,000 WUs after 100,000 events, with a
 * valid snapshot and 1,000 new events, ≤ 3 × `node -e 0` (same run); and a full rebuild of that
 * fold ≥ 200,000 events/s (in process, from scratch).
 */
export const WU_STATUS = { name: 'wu-status', work: '`orchestrate status`, 1,000 WUs, 100,000 events, snapshot + 1,000 new', maxRatio: 3 };
const NOW = '2026-04-17T12:00:00.000Z';

function env(): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('BATON_')) out[k] = v;
  return { ...out, BATON_NOW: NOW };
}

function timeNode(args: readonly string[], input?: string): number {
  const start = performance.now();
  const r = spawnSync(process.execPath, args, { env: env(), input: input ?? '', stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - start;
  if (r.status !== 0) throw new Error(`node ${args.slice(0, 4).join(' ')} exited ${r.status}: ${String(r.stderr).slice(0, 500)}`);
  return ms;
}

/** The i-th synthetic event: WU definitions first, then a claim/checkpoint/signal-like mix over 1,000 WUs. */
function line(i: number, wus: number): string {
  const wu = `WU-${(i % wus) + 1}`;
  if (i < wus) return JSON.stringify({ type: 'wu.defined', stream: `wu/${wu}`, data: { wu_id: wu, initiative: 'INIT-1', lane: `L${i % 50}`, title: wu, dependencies: i >= 100 ? [`WU-${(i % 100) + 1}`] : [] } });
  if (i < 2 * wus && i % 3 === 0) {
    return JSON.stringify({ type: 'wu.claimed', stream: `wu/${wu}`, data: { wu_id: wu, session_id: null, mode: 'worktree', worktree_path: `worktrees/${wu}`, branch: `lane/x/${wu.toLowerCase()}`, takeover_from: null } });
  }
  if (i % 2 === 0) return JSON.stringify({ type: 'observation.worktree', stream: `wu/${wu}`, data: { wu_id: wu, path: `worktrees/${wu}`, present: i % 4 === 0, branch: null } });
  return JSON.stringify({ type: 'note.recorded', stream: 'note/bench', data: { text: `filler ${i}` } });
}

export function appendLines(dir: string, from: number, to: number, wus: number): void {
  const chunk = 20_000;
  for (let start = from; start < to; start += chunk) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(to, start + chunk); i++) lines.push(line(i, wus));
    timeNode([BATON_BIN, '--dir', dir, '--json', 'log', 'append', '--events', '-', '--batch'], `${lines.join('\n')}\n`);
  }
}

export async function benchWorkUnitsStatus(options: { events: number; runs: number }): Promise<BenchResult> {
  const wus = 1000;
  return withTempDir('wu-status', async (dir) => {
    timeNode([BATON_BIN, '--dir', dir, '--json', 'init']);
    timeNode([BATON_BIN, '--dir', dir, '--json', 'initiative', 'create', 'INIT-1', '--title', 'Bench']);
    appendLines(dir, 0, options.events, wus);
    const status = [BATON_BIN, '--dir', dir, '--json', 'orchestrate', 'status', 'INIT-1'];
    timeNode(status); // leaves a snapshot at the head
    appendLines(dir, options.events, options.events + 1000, wus);
    const cache = join(dir, '.baton', 'cache');
    const saved = join(dir, 'cache-saved');
    cpSync(cache, saved, { recursive: true });
    const nodeMs: number[] = [];
    const statusMs: number[] = [];
    for (let i = 0; i < options.runs; i++) {
      // Each run starts from the same snapshot with the same 1,000 events after it.
      rmSync(cache, { recursive: true, force: true });
      cpSync(saved, cache, { recursive: true });
      nodeMs.push(timeNode(['-e', '0']));
      statusMs.push(timeNode(status));
    }
    // Full rebuild, in process: the fold from scratch over the whole log.
    const catalog = createCatalog();
    const store = await openStore({ workspace: dir, config: { kind: 'jsonl' }, catalog, now: () => NOW, actor: 'bench' });
    const start = performance.now();
    const run = await runProjection(store, workUnitsStateProjection, { catalog, now: NOW });
    const rebuildMs = performance.now() - start;
    await store.close();
    const node = median(nodeMs);
    const wall = median(statusMs);
    const ratio = wall / node;
    const rebuildRate = rate(run.seq, rebuildMs);
    return {
      name: WU_STATUS.name,
      work: WU_STATUS.work,
      baton: { value: wall, unit: 'ms', detail: `median of ${options.runs} runs after ${formatNumber(options.events)} events` },
      limit: { value: node, unit: 'ms', detail: 'median of `node -e 0`' },
      ratio,
      floor: `≤ ${WU_STATUS.maxRatio}× node -e 0; full rebuild ≥ 200,000 events/s`,
      pass: ratio <= WU_STATUS.maxRatio && rebuildRate >= 200_000,
      notes: [`full rebuild of the work-unit fold: ${formatNumber(run.seq)} events in ${formatNumber(rebuildMs, 1)} ms = ${formatNumber(rebuildRate)} events/s`],
    };
  });
}
