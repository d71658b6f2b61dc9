import { join } from 'node:path';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { rawAppendLoop } from './raw-append.js';
import { formatNumber, rate, type BenchResult } from './report.js';
import { mean, noteEvent, rawLine, withTempDir } from './support.js';

export const APPEND_SINGLE = {
  name: 'append-single',
  work: 'durable append, one event per call, one process',
  floor: 2_000,
};

const WARMUP = 50;

/**
 * `events` appends, each its own call and awaited before the next, through the JSONL store. The
 * machine's limit is a raw write()+fdatasync() per line of the same size, O_APPEND, in the same
 * directory, measured just before and just after (the mean of the two is reported).
 */
export async function benchAppendSingle(options: { events: number }): Promise<BenchResult> {
  return withTempDir('append-single', async (dir) => {
    JsonlEventStore.initWorkspace(dir);
    const store = new JsonlEventStore(dir);
    const rawPath = join(store.layout.log, 'raw-limit.bin');
    const line = rawLine();
    try {
      for (let i = 0; i < WARMUP; i++) await store.append([noteEvent(i)]);
      rawAppendLoop(rawPath, line, WARMUP);

      const before = rawAppendLoop(rawPath, line, options.events);
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      for (let i = 0; i < options.events; i++) await store.append([noteEvent(WARMUP + i)]);
      const ms = performance.now() - start;
      const cpu = process.cpuUsage(cpuStart);
      const after = rawAppendLoop(rawPath, line, options.events);

      const head = await store.head();
      if (head.seq !== WARMUP + options.events) throw new Error(`head seq ${head.seq}, expected ${WARMUP + options.events}`);
      const batonRate = rate(options.events, ms);
      const limitRates = [rate(before.events, before.ms), rate(after.events, after.ms)];
      const limitRate = mean(limitRates);
      return {
        name: APPEND_SINGLE.name,
        work: APPEND_SINGLE.work,
        baton: { value: batonRate, unit: 'events/s', detail: `${formatNumber(options.events)} appends in ${formatNumber(ms)} ms (${(ms / options.events).toFixed(3)} ms each)` },
        limit: {
          value: limitRate,
          unit: 'events/s',
          detail: `raw write+fdatasync per ${line.length}-byte line, O_APPEND (before ${formatNumber(limitRates[0]!)}, after ${formatNumber(limitRates[1]!)})`,
        },
        ratio: batonRate / limitRate,
        floor: `≥ ${formatNumber(APPEND_SINGLE.floor)} events/s`,
        pass: batonRate >= APPEND_SINGLE.floor,
        notes: [
          `CPU ${((cpu.user + cpu.system) / 1000 / options.events).toFixed(3)} ms per append (user ${(cpu.user / 1000 / options.events).toFixed(3)}, sys ${(cpu.system / 1000 / options.events).toFixed(3)}); the raw loop's whole cost is ${(1000 / limitRate).toFixed(3)} ms per event`,
        ],
      };
    } finally {
      await store.close();
    }
  });
}
