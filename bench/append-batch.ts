import type { NewEvent } from '../events/envelope.js';
import { withAppendWorkspace } from './append-workspace.js';
import { rawAppendLoop } from './raw-append.js';
import { formatNumber, rate, type BenchResult } from './report.js';
import { alternateWithRawLimit, bestOfRounds, eventRateRow, fastest, timeRound } from './rounds.js';
import { collectGarbage, noteEvent } from './support.js';

export const APPEND_BATCH = {
  name: 'append-batch',
  work: 'durable append, batches of 100 in one call',
  floor: 50_000,
};

const BATCH = 100;
const WARMUP_BATCHES = 5;

/**
 * `rounds` rounds of `batches` calls of append() with 100 events each. The machine's limit is raw
 * group commit: 100 lines of the same size in one write() and one fdatasync(), before each round
 * and once after the last. The best round of each is reported (every round is printed): the VM's
 * neighbours swing single runs by tens of percent.
 */
export async function benchAppendBatch(options: { batches: number; rounds: number }): Promise<BenchResult> {
  return withAppendWorkspace('append-batch', async ({ store, rawPath, line }) => {
    const events = options.batches * BATCH;
    const batch = (b: number): NewEvent[] => Array.from({ length: BATCH }, (_, i) => noteEvent(b * BATCH + i));
    for (let b = 0; b < WARMUP_BATCHES; b++) await store.append(batch(b));
    rawAppendLoop(rawPath, line, WARMUP_BATCHES * BATCH, BATCH);

    let next = WARMUP_BATCHES;
    const rawRate = (): number => {
      const raw = rawAppendLoop(rawPath, line, events, BATCH);
      return rate(raw.events, raw.ms);
    };
    const { rounds, limitRates } = await alternateWithRawLimit(options.rounds, rawRate, async () => {
      // The events are built before the clock starts: the caller's object construction is not the
      // store's cost. Validation, hashing, serialising, writing and syncing all are.
      const batches = Array.from({ length: options.batches }, (_, b) => batch(next + b));
      next += options.batches;
      // …nor is moving those inputs out of the young generation: without a collection here, the
      // round's first scavenges copy every one of them, on the store's clock.
      collectGarbage();
      return timeRound(async () => {
        for (const b of batches) await store.append(b);
      });
    });

    const head = await store.head();
    if (head.seq !== next * BATCH) throw new Error(`head seq ${head.seq}, expected ${next * BATCH}`);
    const best = fastest(rounds);
    const batonRate = rate(events, best.ms);
    const limitRate = Math.max(...limitRates);
    const cpu = best.cpu;
    // The limit's fdatasyncs run back to back; the store's are separated by its CPU. The same loop
    // with the best round's CPU per batch spun before each write shows what that gap alone costs.
    const cpuMsPerBatch = (cpu.user + cpu.system) / 1000 / options.batches;
    const backToBack = rawAppendLoop(rawPath, line, events, BATCH);
    const separated = rawAppendLoop(rawPath, line, events, BATCH, cpuMsPerBatch);
    const writes = options.batches;
    return eventRateRow(
      APPEND_BATCH,
      {
        rate: batonRate,
        detail: `${formatNumber(options.batches)} batches of ${BATCH} in ${formatNumber(best.ms)} ms (${(best.ms / options.batches).toFixed(2)} ms a batch), ${bestOfRounds(rounds.length)}`,
      },
      { rate: limitRate, detail: `raw group commit: ${BATCH} × ${line.length}-byte lines per write+fdatasync, best of ${limitRates.length} loops` },
      [
        `rounds (events/s): baton ${rounds.map((r) => formatNumber(rate(events, r.ms))).join(', ')}; raw group commit ${limitRates.map((r) => formatNumber(r)).join(', ')}`,
        `CPU ${cpuMsPerBatch.toFixed(2)} ms per batch = ${((cpu.user + cpu.system) / events).toFixed(1)} µs per event in the best round; the raw group commit's whole cost is ${((1000 * BATCH) / limitRate).toFixed(2)} ms per batch`,
        `raw group commit with ${cpuMsPerBatch.toFixed(2)} ms of CPU spun before each write (the best round's CPU per batch): ${formatNumber(rate(separated.events, separated.ms))} events/s, fdatasync ${(separated.syncMs / writes).toFixed(2)} ms a batch; back to back in the same loop: ${formatNumber(rate(backToBack.events, backToBack.ms))} events/s, fdatasync ${(backToBack.syncMs / writes).toFixed(2)} ms a batch`,
      ],
    );
  });
}
