import { withAppendWorkspace } from './append-workspace.js';
import { rawAppendLoop } from './raw-append.js';
import { formatNumber, rate, type BenchResult } from './report.js';
import { alternateWithRawLimit, bestOfRounds, eventRateRow, fastest, timeRound } from './rounds.js';
import { noteEvent } from './support.js';

export const APPEND_SINGLE = {
  name: 'append-single',
  work: 'durable append, one event per call, one process',
  floor: 2_000,
};

const WARMUP = 50;

/**
 * `rounds` rounds of `events` appends, each its own call and awaited before the next, through the
 * JSONL store. The machine's limit is a raw write()+fdatasync() per line of the same size,
 * O_APPEND, in the same directory, measured before each round and once after the last. The VM's
 * neighbours swing single runs by tens of percent, so the best round of each is reported (every
 * round is printed), as the replay and verify rows do.
 */
export async function benchAppendSingle(options: { events: number; rounds: number }): Promise<BenchResult> {
  return withAppendWorkspace('append-single', async ({ store, rawPath, line }) => {
    for (let i = 0; i < WARMUP; i++) await store.append([noteEvent(i)]);
    rawAppendLoop(rawPath, line, WARMUP);

    let appended = WARMUP;
    const rawRate = (): number => {
      const raw = rawAppendLoop(rawPath, line, options.events);
      return rate(raw.events, raw.ms);
    };
    const { rounds, limitRates } = await alternateWithRawLimit(options.rounds, rawRate, async () => {
      const round = await timeRound(async () => {
        for (let i = 0; i < options.events; i++) await store.append([noteEvent(appended + i)]);
      });
      appended += options.events;
      return round;
    });

    const head = await store.head();
    if (head.seq !== appended) throw new Error(`head seq ${head.seq}, expected ${appended}`);
    const best = fastest(rounds);
    const batonRate = rate(options.events, best.ms);
    const limitRate = Math.max(...limitRates);
    const cpu = best.cpu;
    return eventRateRow(
      APPEND_SINGLE,
      {
        rate: batonRate,
        detail: `${formatNumber(options.events)} appends in ${formatNumber(best.ms)} ms (${(best.ms / options.events).toFixed(3)} ms each), ${bestOfRounds(rounds.length)}`,
      },
      { rate: limitRate, detail: `raw write+fdatasync per ${line.length}-byte line, O_APPEND, best of ${limitRates.length} loops` },
      [
        `rounds (events/s): baton ${rounds.map((r) => formatNumber(rate(options.events, r.ms))).join(', ')}; raw loop ${limitRates.map((r) => formatNumber(r)).join(', ')}`,
        `CPU ${((cpu.user + cpu.system) / 1000 / options.events).toFixed(3)} ms per append in the best round (user ${(cpu.user / 1000 / options.events).toFixed(3)}, sys ${(cpu.system / 1000 / options.events).toFixed(3)}); the raw loop's whole cost is ${(1000 / limitRate).toFixed(3)} ms per event`,
      ],
    );
  });
}
