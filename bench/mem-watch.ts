import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCatalog } from '../events/index.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { envWithout } from './node-reference.js';
import { formatNumber, type BenchResult } from './report.js';
import { median, PROJECT_ROOT, withTempDir } from './support.js';

/**
 * `mem watch` delivery latency (architecture budget): a signal appended by this process, printed
 * by a `baton mem watch` in another process. Timed from just before the append call to the moment
 * the watcher's `signal_received` line reaches this process's pipe. The machine's limit: how soon
 * `fs.watch` notices an append to a file.
 */
export const MEM_WATCH = {
  name: 'mem-watch',
  work: '`mem watch` delivery: append in one process → printed by the watcher in another',
  maxMedianMs: 50,
};

const BIN = join(PROJECT_ROOT, 'dist', 'bin', 'baton.js');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function startSession(dir: string): string {
  const r = spawnSync(process.execPath, [BIN, '--dir', dir, '--json', 'session', 'start'], { env: envWithout(), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`session start failed: ${r.stdout}${r.stderr}`);
  return (JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { session: { id: string } }).session.id;
}

/** fs.watch notice latency: append a line, time until the watcher fires (median of `runs`). */
async function fsWatchLimit(dir: string, runs: number): Promise<number> {
  const file = join(dir, 'probe.jsonl');
  writeFileSync(file, '');
  const times: number[] = [];
  let pending: ((t: number) => void) | undefined;
  const watcher = watch(file, () => pending?.(performance.now()));
  try {
    for (let i = 0; i < runs; i++) {
      const noticed = new Promise<number>((resolve) => (pending = resolve));
      const start = performance.now();
      appendFileSync(file, `{"i":${i}}\n`);
      times.push((await noticed) - start);
      pending = undefined;
      await sleep(5);
    }
  } finally {
    watcher.close();
  }
  return median(times);
}

export async function benchMemWatch(options: { signals: number }): Promise<BenchResult> {
  return withTempDir('mem-watch', async (dir) => {
    const init = spawnSync(process.execPath, [BIN, '--dir', dir, 'init', '--json'], { env: envWithout() });
    if (init.status !== 0) throw new Error('baton init failed');
    const reader = startSession(dir);
    const sender = startSession(dir);
    const watcher = spawn(process.execPath, [BIN, '--dir', dir, '--json', 'mem', 'watch', '--session', reader], {
      env: envWithout(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const arrivals = new Map<string, number>();
    let buffer = '';
    watcher.stdout.on('data', (chunk: Buffer) => {
      const now = performance.now();
      buffer += chunk.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const id = /"signal_id":"(sig-[0-9a-z]+)"/.exec(line)?.[1];
        if (id) arrivals.set(id, now);
      }
    });
    const store = new JsonlEventStore(dir, { catalog: createCatalog(), actor: sender });
    const latencies: number[] = [];
    try {
      await sleep(1500); // the watcher's start-up and catch-up
      for (let i = 0; i < options.signals; i++) {
        const signalId = `sig-bench${String(i).padStart(6, '0')}`;
        const now = new Date().toISOString();
        const data = {
          schema_version: 'A2A.V1',
          signal_id: signalId,
          sender_identity: sender,
          recipients: [reader],
          target_agent: reader,
          thread_id: `bench-${i}`,
          intent: 'INFO',
          interrupt_class: 'priority',
          requires_ack: false,
          message: `bench ${i}`,
          origin: 'local',
          created_at: now,
          sender_session_id: sender,
        };
        const start = performance.now();
        await store.append([{ type: 'signal.sent', stream: `thread/bench-${i}`, data, at: now }]);
        const deadline = start + 5000;
        while (!arrivals.has(signalId) && performance.now() < deadline) await sleep(1);
        const arrived = arrivals.get(signalId);
        if (arrived === undefined) throw new Error(`the watcher did not print ${signalId} within 5 s`);
        latencies.push(arrived - start);
        await sleep(20); // let the watcher record its receipt before the next append
      }
    } finally {
      watcher.kill('SIGINT');
      await store.close();
    }
    const limit = await fsWatchLimit(dir, options.signals);
    const med = median(latencies);
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      name: MEM_WATCH.name,
      work: MEM_WATCH.work,
      baton: {
        value: med,
        unit: 'ms',
        detail: `median of ${latencies.length} signals, append call → line on the watcher's stdout (p90 ${formatNumber(sorted[Math.floor(sorted.length * 0.9)] ?? med, 1)} ms)`,
      },
      limit: { value: limit * 1000, unit: 'µs', detail: `median fs.watch notice of an append (${options.signals} appends)` },
      ratio: limit > 0 ? med / limit : Number.POSITIVE_INFINITY,
      floor: `median ≤ ${MEM_WATCH.maxMedianMs} ms`,
      pass: med <= MEM_WATCH.maxMedianMs,
      notes: [`min ${formatNumber(sorted[0] ?? 0, 1)} ms, max ${formatNumber(sorted.at(-1) ?? 0, 1)} ms`],
    };
  });
}
