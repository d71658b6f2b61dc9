/**
 * The `== summary` table that `dist/bench/run.js` prints last (report.ts printSummary), read back,
 * and two builds' rows compared: compare-builds.ts runs an older build's bench beside this one and
 * reads both from their output, so the comparison works with any build that prints this table.
 */

export interface SummaryRow {
  name: string;
  /** The baton column as printed, e.g. `91.8 ms`, `605,171 events/s`, `1,536 KiB`. */
  baton: string;
  value: number;
  unit: string;
  ratio: number;
  floor: string;
  result: string;
}

/** A number as report.ts formats it (thousands separated by commas). */
function parseFigure(text: string): { value: number; unit: string } | undefined {
  const match = /^(-?[\d,]+(?:\.\d+)?)\s*(.*)$/.exec(text.trim());
  if (!match) return undefined;
  return { value: Number(match[1]!.replace(/,/g, '')), unit: match[2]!.trim() };
}

/** The rows of the last summary table in a bench run's output; rows that ended in an error are left out. */
export function parseSummary(output: string): SummaryRow[] {
  const start = output.lastIndexOf('\n== summary');
  if (start < 0) return [];
  const lines = output.slice(start).split('\n').slice(2);
  const rows: SummaryRow[] = [];
  for (const line of lines) {
    const cells = line.split(' | ').map((c) => c.trim());
    if (cells.length !== 6 || cells[0] === 'benchmark' || /^-+$/.test(cells[0]!)) continue;
    const [name, baton, , ratioText, floor, result] = cells as [string, string, string, string, string, string];
    const figure = parseFigure(baton);
    const ratio = Number(ratioText.replace(/×$/, ''));
    if (figure === undefined || !Number.isFinite(ratio)) continue;
    rows.push({ name, baton, value: figure.value, unit: figure.unit, ratio, floor, result });
  }
  return rows;
}

export const Direction = { lower: 'lower', higher: 'higher' } as const;
export type Direction = (typeof Direction)[keyof typeof Direction];

/**
 * Which figure of a row says how good it is, and which way is better. A wall time against `node
 * -e 0` is judged by its ratio (both measured in the same run, so the machine's load cancels out);
 * a rate (events/s) by itself, higher better; any other figure (ms, KiB) by itself, lower better.
 */
export function figureOf(row: SummaryRow): { value: number; direction: Direction; label: string } {
  if (row.floor.includes('node -e 0')) return { value: row.ratio, direction: Direction.lower, label: `${row.ratio.toFixed(2)}×` };
  if (row.unit.endsWith('/s')) return { value: row.value, direction: Direction.higher, label: row.baton };
  return { value: row.value, direction: Direction.lower, label: row.baton };
}

/** The best of several rounds of one row, by its figure. */
export function bestOf(rows: readonly SummaryRow[]): SummaryRow {
  if (rows.length === 0) throw new Error('bestOf: no rounds');
  return rows.reduce((best, row) => {
    const a = figureOf(best);
    const b = figureOf(row);
    return (a.direction === Direction.lower ? b.value < a.value : b.value > a.value) ? row : best;
  });
}

export interface Comparison {
  name: string;
  before: string;
  after: string;
  /** after / before of the judged figure, as a signed percentage where positive is better. */
  gainPercent: number;
  atLeastAsGood: boolean;
}

/**
 * One row of each build compared by its judged figure. `tolerancePercent` is the noise allowed
 * before a row counts as worse (0: any loss counts).
 */
export function compareRows(before: SummaryRow, after: SummaryRow, tolerancePercent = 0): Comparison {
  const a = figureOf(before);
  const b = figureOf(after);
  const gainPercent = a.direction === Direction.lower ? ((a.value - b.value) / a.value) * 100 : ((b.value - a.value) / a.value) * 100;
  return { name: after.name, before: a.label, after: b.label, gainPercent, atLeastAsGood: gainPercent >= -tolerancePercent };
}
