import { formatNumber, type BenchResult } from './report.js';

/**
 * How the append rows measure: rounds of Baton's work alternated with the machine's raw limit (one
 * raw loop before each round and one after the last), the fastest round of each reported and every
 * round printed, because the VM's neighbours swing single runs by tens of percent.
 */

export interface TimedRound {
  ms: number;
  cpu: NodeJS.CpuUsage;
}

/** Wall time and this process's CPU time of one round. */
export async function timeRound(body: () => Promise<void>): Promise<TimedRound> {
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  await body();
  return { ms: performance.now() - start, cpu: process.cpuUsage(cpuStart) };
}

export function fastest<T extends { ms: number }>(runs: readonly T[]): T {
  return runs.reduce((a, b) => (b.ms < a.ms ? b : a));
}

/** "best of 3 rounds", as the rows' details say it. */
export function bestOfRounds(count: number): string {
  return `best of ${count} round${count === 1 ? '' : 's'}`;
}

/**
 * `count` rounds, each preceded by a run of the raw limit (`rawRate` returns its events/s), and
 * one more raw run after the last. Returns every round and every limit rate, in order.
 */
export async function alternateWithRawLimit(
  count: number,
  rawRate: () => number,
  batonRound: () => Promise<TimedRound>,
): Promise<{ rounds: TimedRound[]; limitRates: number[] }> {
  const limitRates: number[] = [];
  const rounds: TimedRound[] = [];
  for (let round = 0; round < count; round++) {
    limitRates.push(rawRate());
    rounds.push(await batonRound());
  }
  limitRates.push(rawRate());
  return { rounds, limitRates };
}

/** An append row: Baton's rate against the machine's limit, held against the spec's floor (events/s). */
export function eventRateRow(
  spec: { name: string; work: string; floor: number },
  baton: { rate: number; detail: string },
  limit: { rate: number; detail: string },
  notes: string[],
  floorSuffix = '',
): BenchResult {
  return {
    name: spec.name,
    work: spec.work,
    baton: { value: baton.rate, unit: 'events/s', detail: baton.detail },
    limit: { value: limit.rate, unit: 'events/s', detail: limit.detail },
    ratio: baton.rate / limit.rate,
    floor: `≥ ${formatNumber(spec.floor)} events/s${floorSuffix}`,
    pass: baton.rate >= spec.floor,
    notes,
  };
}
