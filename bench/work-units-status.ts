import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { envWithout } from './node-reference.js';
import { atSpecReadLimit, formatNumber, rate, type BenchResult } from './report.js';
import { median, runChild, withTempDir } from './support.js';
import type { RebuildRounds } from './wu-rebuild-child.js';
import { BATON_BIN } from './short-command.js';

/**
 * Issue 4's budgets: `orchestrate status` for an initiative of 1,000 WUs after 100,000 events, with a
 * valid snapshot and 1,000 new events, ≤ 3 × `node -e 0` (same run); and a full rebuild of that
 * fold ≥ 200,000 events/s (in process, from scratch), printed next to the machine's limit for
 * reading the same log. Two results: both figures get their own row in the summary.
 */
export const WU_STATUS = { name: 'wu-status', work: '`orchestrate status`, 1,000 WUs, 100,000 events, snapshot + 1,000 new', maxRatio: 3 };
export const WU_REBUILD = {
  name: 'wu-status-rebuild',
  work: 'full rebuild of the work-unit fold behind `orchestrate status` (from scratch, in process)',
  floor: 200_000,
};
const NOW = '2026-04-17T12:00:00.000Z';
/** Rebuild and limit rounds, alternated; the best of each is reported (every round is printed). */
const REBUILD_ROUNDS = 5;

function env(): NodeJS.ProcessEnv {
  return { ...envWithout(), BATON_NOW: NOW };
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
  if (i < wus)
    return JSON.stringify({
      type: 'wu.defined',
      stream: `wu/${wu}`,
      data: { wu_id: wu, initiative: 'INIT-1', lane: `L${i % 50}`, title: wu, dependencies: i >= 100 ? [`WU-${(i % 100) + 1}`] : [] },
    });
  if (i < 2 * wus && i % 3 === 0) {
    return JSON.stringify({
      type: 'wu.claimed',
      stream: `wu/${wu}`,
      data: { wu_id: wu, session_id: null, mode: 'worktree', worktree_path: `worktrees/${wu}`, branch: `lane/x/${wu.toLowerCase()}`, takeover_from: null },
    });
  }
  if (i % 2 === 0)
    return JSON.stringify({
      type: 'observation.worktree',
      stream: `wu/${wu}`,
      data: { wu_id: wu, path: `worktrees/${wu}`, present: i % 4 === 0, branch: null },
    });
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

export async function benchWorkUnitsStatus(options: { events: number; runs: number }): Promise<BenchResult[]> {
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
    // The run that writes the next snapshot: the work-unit fold writes one once a run folds five
    // events per WU past its snapshot (projections/work-units/fold.ts), here 5,000; printed beside
    // the row so the cost of a write stays in sight.
    const interval = 5 * wus;
    appendLines(dir, options.events + 1000, options.events + interval, wus);
    const writingMs: number[] = [];
    for (let i = 0; i < Math.min(options.runs, 7); i++) {
      rmSync(cache, { recursive: true, force: true });
      cpSync(saved, cache, { recursive: true });
      writingMs.push(timeNode(status));
    }
    const snapshotSeq = (JSON.parse(readFileSync(join(cache, 'work_units.snapshot.json'), 'utf8')) as { seq: number }).seq;
    if (snapshotSeq !== options.events + interval + 1)
      throw new Error(`wu-status: the run at the interval left a snapshot at seq ${snapshotSeq}, not at the head ${options.events + interval + 1}`);

    // Full rebuild, in process (a child of its own: wu-rebuild-child.ts): the fold from scratch
    // over the whole log, against the machine's limit for reading it, alternated, best of each.
    const { folded, lines, rebuildMs, limitMs } = JSON.parse(
      await runChild('wu-rebuild-child', [dir, String(REBUILD_ROUNDS), NOW], ['--expose-gc']),
    ) as RebuildRounds;
    const node = median(nodeMs);
    const wall = median(statusMs);
    const ratio = wall / node;
    const rebuildRate = rate(folded, Math.min(...rebuildMs));
    const limitRate = rate(lines, Math.min(...limitMs));
    const results: BenchResult[] = [
      {
        name: WU_STATUS.name,
        work: WU_STATUS.work,
        baton: {
          value: wall,
          unit: 'ms',
          detail: `median of ${options.runs} runs after ${formatNumber(options.events)} events (min ${formatNumber(Math.min(...statusMs), 1)})`,
        },
        limit: { value: node, unit: 'ms', detail: `median of \`node -e 0\` (min ${formatNumber(Math.min(...nodeMs), 1)})` },
        ratio,
        floor: `≤ ${WU_STATUS.maxRatio}× node -e 0`,
        pass: ratio <= WU_STATUS.maxRatio,
        notes: [
          `a run at the snapshot interval (${formatNumber(interval)} new events, folds them and writes the snapshot): median ${formatNumber(median(writingMs), 1)} ms = ${formatNumber(median(writingMs) / median(nodeMs), 2)}× node -e 0`,
        ],
      },
      {
        name: WU_REBUILD.name,
        work: WU_REBUILD.work,
        baton: {
          value: rebuildRate,
          unit: 'events/s',
          detail: `${formatNumber(folded)} events in ${formatNumber(Math.min(...rebuildMs))} ms (best of ${rebuildMs.length})`,
        },
        limit: {
          value: limitRate,
          unit: 'events/s',
          detail: `1 MiB chunked read + JSON.parse per line of the same log, ${formatNumber(Math.min(...limitMs))} ms`,
        },
        ratio: rebuildRate / limitRate,
        floor: `≥ ${formatNumber(WU_REBUILD.floor)} events/s`,
        pass: rebuildRate >= WU_REBUILD.floor,
        notes: [
          `runs (ms): rebuild ${rebuildMs.map((ms) => formatNumber(ms)).join(', ')}; limit ${limitMs.map((ms) => formatNumber(ms)).join(', ')}`,
          atSpecReadLimit(rebuildRate / limitRate),
        ],
      },
    ];
    return results;
  });
}
