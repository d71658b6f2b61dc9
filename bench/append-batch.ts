import { join } from 'node:path';
import type { NewEvent } from '../events/envelope.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { rawAppendLoop } from './raw-append.js';
import { formatNumber, rate, type BenchResult } from './report.js';
import { mean, noteEvent, rawLine, withTempDir } from './support.js';

export const APPEND_BATCH = {
  name: 'append-batch',
  work: 'durable append, batches of 100 in one call',
  floor: 50_000,
};

const BATCH = 100;
const WARMUP_BATCHES = 5;

/**
 * `batches` calls of append() with 100 events each. The machine's limit is raw group commit: 100
 * lines of the same size in one write() and one fdatasync(), before and after (mean reported).
 */
export async function benchAppendBatch(options: { batches: number }): Promise<BenchResult> {
  return withTempDir('append-batch', async (dir) => {
    JsonlEventStore.initWorkspace(dir);
    const store = new JsonlEventStore(dir);
    const rawPath = join(store.layout.log, 'raw-limit.bin');
    const line = rawLine();
    const events = options.batches * BATCH;
    const batch = (b: number): NewEvent[] => Array.from({ length: BATCH }, (_, i) => noteEvent(b * BATCH + i));
    try {
      for (let b = 0; b < WARMUP_BATCHES; b++) await store.append(batch(b));
      rawAppendLoop(rawPath, line, WARMUP_BATCHES * BATCH, BATCH);

      const before = rawAppendLoop(rawPath, line, events, BATCH);
      // The events are built before the clock starts: the caller's object construction is not the
      // store's cost. Validation, hashing, serialising, writing and syncing all are.
      const batches = Array.from({ length: options.batches }, (_, b) => batch(WARMUP_BATCHES + b));
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      for (const b of batches) await store.append(b);
      const ms = performance.now() - start;
      const cpu = process.cpuUsage(cpuStart);
      const after = rawAppendLoop(rawPath, line, events, BATCH);

      const head = await store.head();
      const expected = (WARMUP_BATCHES + options.batches) * BATCH;
      if (head.seq !== expected) throw new Error(`head seq ${head.seq}, expected ${expected}`);
      const batonRate = rate(events, ms);
      const limitRates = [rate(before.events, before.ms), rate(after.events, after.ms)];
      const limitRate = mean(limitRates);
      return {
        name: APPEND_BATCH.name,
        work: APPEND_BATCH.work,
        baton: { value: batonRate, unit: 'events/s', detail: `${formatNumber(options.batches)} batches of ${BATCH} in ${formatNumber(ms)} ms (${(ms / options.batches).toFixed(2)} ms a batch)` },
        limit: {
          value: limitRate,
          unit: 'events/s',
          detail: `raw group commit: ${BATCH} × ${line.length}-byte lines per write+fdatasync (before ${formatNumber(limitRates[0]!)}, after ${formatNumber(limitRates[1]!)})`,
        },
        ratio: batonRate / limitRate,
        floor: `≥ ${formatNumber(APPEND_BATCH.floor)} events/s`,
        pass: batonRate >= APPEND_BATCH.floor,
        notes: [
          `CPU ${((cpu.user + cpu.system) / 1000 / options.batches).toFixed(2)} ms per batch = ${((cpu.user + cpu.system) / events).toFixed(1)} µs per event; the raw group commit's whole cost is ${((1000 * BATCH) / limitRate).toFixed(2)} ms per batch`,
        ],
      };
    } finally {
      await store.close();
    }
  });
}
