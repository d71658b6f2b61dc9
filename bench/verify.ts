import type { LogFixture } from './log-fixture.js';
import { alternateReadChildren } from './read-child-runs.js';
import { formatNumber, rate, type BenchResult } from './report.js';

export const VERIFY = {
  name: 'verify',
  work: '`log verify` (hash chain + schema)',
  floor: 100_000,
};

/**
 * The store's verify() over the whole log in a fresh child, against the machine's limit named in
 * the spec: the zod parse of every envelope alone (JSON parsing and reading off the clock).
 */
export async function benchVerify(fixture: LogFixture, options: { repeats: number }): Promise<BenchResult> {
  const { batonRuns, limitRuns, baton, limit } = await alternateReadChildren(
    { baton: 'verify', limit: 'verify-limit', verb: 'checked' },
    fixture,
    options.repeats,
  );
  const batonRate = rate(baton.events, baton.ms);
  const limitRate = rate(limit.events, limit.ms);
  const withRead = limit.detail['read_parse_zod_ms'] as number;
  return {
    name: VERIFY.name,
    work: `${VERIFY.work} of ${formatNumber(fixture.events)} events`,
    baton: { value: batonRate, unit: 'events/s', detail: `${formatNumber(baton.events)} events in ${formatNumber(baton.ms)} ms` },
    limit: { value: limitRate, unit: 'events/s', detail: `StoredEventSchema.safeParse alone, ${formatNumber(limit.ms)} ms` },
    ratio: batonRate / limitRate,
    floor: `≥ ${formatNumber(VERIFY.floor)} events/s`,
    pass: batonRate >= VERIFY.floor,
    notes: [
      `read + JSON.parse + zod together: ${formatNumber(rate(limit.events, withRead))} events/s (${formatNumber(withRead)} ms)`,
      `runs (ms): baton ${batonRuns.map((r) => formatNumber(r.ms)).join(', ')}; limit ${limitRuns.map((r) => formatNumber(r.ms)).join(', ')}`,
    ],
  };
}
