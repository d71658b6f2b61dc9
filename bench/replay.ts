import type { LogFixture } from './log-fixture.js';
import { alternateReadChildren } from './read-child-runs.js';
import { atSpecReadLimit, formatNumber, rate, type BenchResult } from './report.js';

export const REPLAY = {
  name: 'replay',
  work: 'full replay of the log into every projection',
  floor: 200_000,
  maxRssMB: 400,
};

/**
 * Each figure comes from a fresh child process that does nothing else (so its peak RSS is the
 * replay's). The limit and Baton alternate `repeats` times; the best of each is reported, and the
 * highest peak RSS of Baton's runs is held against the memory floor.
 */
export async function benchReplay(fixture: LogFixture, options: { repeats: number }): Promise<BenchResult> {
  const { batonRuns, limitRuns, baton, limit } = await alternateReadChildren({ baton: 'replay', limit: 'replay-limit', verb: 'saw' }, fixture, options.repeats);
  const batonRate = rate(baton.events, baton.ms);
  const limitRate = rate(limit.events, limit.ms);
  const peakRss = Math.max(...batonRuns.map((r) => Math.max(r.maxRssMB, r.vmHwmMB ?? 0)));
  const fast = batonRate >= REPLAY.floor;
  const small = peakRss <= REPLAY.maxRssMB;
  const projections = (baton.detail['projections'] as string[] | undefined)?.join(', ') ?? '?';
  return {
    name: REPLAY.name,
    work: `${REPLAY.work} (${formatNumber(fixture.events)} events)`,
    baton: {
      value: batonRate,
      unit: 'events/s',
      detail: `${formatNumber(baton.events)} events in ${formatNumber(baton.ms)} ms, peak RSS ${formatNumber(peakRss)} MB`,
    },
    limit: {
      value: limitRate,
      unit: 'events/s',
      detail: `1 MiB chunked read + JSON.parse per line, ${formatNumber(limit.ms)} ms, peak RSS ${formatNumber(limit.maxRssMB)} MB`,
    },
    ratio: batonRate / limitRate,
    floor: `≥ ${formatNumber(REPLAY.floor)} events/s and RSS ≤ ${REPLAY.maxRssMB} MB`,
    pass: fast && small,
    notes: [
      `projections folded: ${projections}`,
      `peak RSS of the replay child ${formatNumber(peakRss)} MB (${small ? 'within' : 'OVER'} ${REPLAY.maxRssMB} MB); rate ${fast ? 'meets' : 'MISSES'} the floor`,
      `runs (ms): baton ${batonRuns.map((r) => formatNumber(r.ms)).join(', ')}; limit ${limitRuns.map((r) => formatNumber(r.ms)).join(', ')}`,
      atSpecReadLimit(batonRate / limitRate),
    ],
  };
}
