import { describe, expect, it } from 'vitest';
import { bestOf, compareRows, figureOf, parseSummary } from '../../bench/summary-table.js';
import { printSummary, type BenchResult } from '../../bench/report.js';

/** What report.ts prints, captured: the parser reads the real printer's output, not a copy of it. */
function printed(results: BenchResult[], failures: { name: string; error: string }[] = []): string {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => void lines.push(args.join(' '));
  try {
    printSummary(results, failures);
  } finally {
    console.log = log;
  }
  return `baton bench: node v20\n\n== short-command: …\n  baton : 1 ms\n${lines.join('\n')}\n`;
}

const row = (name: string, value: number, unit: string, limit: number, floor: string): BenchResult => ({
  name,
  work: name,
  baton: { value, unit, detail: '' },
  limit: { value: limit, unit, detail: '' },
  ratio: value / limit,
  floor,
  pass: true,
  notes: [],
});

describe('the bench summary, read back and compared', () => {
  const output = printed(
    [
      row('short-command-inbox', 91.8, 'ms', 52.8, '≤ 2× node -e 0'),
      row('replay', 605_171, 'events/s', 1_000_000, '≥ 200,000 events/s'),
      row('lumenflow-snapshot-size', 1536, 'KiB', 2050, '≤ 1× the log'),
    ],
    [{ name: 'verify', error: 'boom' }],
  );

  it('reads every printed row with its figure, unit and ratio; a row that failed with an error is left out', () => {
    const rows = parseSummary(output);
    expect(rows.map((r) => [r.name, r.value, r.unit, r.result])).toEqual([
      ['short-command-inbox', 91.8, 'ms', 'PASS'],
      ['replay', 605_171, 'events/s', 'PASS'],
      ['lumenflow-snapshot-size', 1536, 'KiB', 'PASS'],
    ]);
    expect(rows[0]!.ratio).toBeCloseTo(1.74, 2);
  });

  it('judges a wall time against node -e 0 by its ratio, a rate higher-is-better, anything else lower-is-better', () => {
    const [inbox, replay, snapshot] = parseSummary(output) as [never, never, never];
    expect(figureOf(inbox)).toMatchObject({ direction: 'lower', label: '1.74×' });
    expect(figureOf(replay)).toMatchObject({ direction: 'higher', value: 605_171 });
    expect(figureOf(snapshot)).toMatchObject({ direction: 'lower', value: 1536 });
  });

  it('keeps the best round and says whether the new build is at least as good, within a tolerance', () => {
    const slow = parseSummary(printed([row('short-command', 80, 'ms', 50, '≤ 2× node -e 0'), row('replay', 500_000, 'events/s', 1, '≥ 1')]));
    const fast = parseSummary(printed([row('short-command', 70, 'ms', 50, '≤ 2× node -e 0'), row('replay', 600_000, 'events/s', 1, '≥ 1')]));
    expect(bestOf([slow[0]!, fast[0]!]).value).toBe(70);
    expect(bestOf([slow[1]!, fast[1]!]).value).toBe(600_000);

    const better = compareRows(slow[0]!, fast[0]!);
    expect(better.gainPercent).toBeCloseTo(12.5, 5);
    expect(better.atLeastAsGood).toBe(true);
    const worseRate = compareRows(fast[1]!, slow[1]!);
    expect(worseRate.gainPercent).toBeCloseTo(-16.67, 1);
    expect(worseRate.atLeastAsGood).toBe(false);
    expect(compareRows(fast[1]!, slow[1]!, 20).atLeastAsGood).toBe(true);
  });

  it('finds no rows in output without a summary', () => {
    expect(parseSummary('baton bench: node v20\nERROR: no benchmark matches')).toEqual([]);
  });
});
