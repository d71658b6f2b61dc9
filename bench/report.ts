/**
 * How every benchmark reports: Baton's figure, the machine's own limit for the same work measured
 * in the same run, the ratio between them, the floor from the architecture spec's performance
 * budgets, and whether the figure meets that floor. The spec's absolute numbers drift from machine
 * to machine; the ratio is what to compare across runs.
 */

export interface Measure {
  /** The number itself, in `unit`. */
  value: number;
  unit: string;
  /** How it was measured, in a few words (shown under the figure). */
  detail: string;
}

export interface BenchResult {
  name: string;
  /** The row of the spec's budget table. */
  work: string;
  baton: Measure;
  limit: Measure;
  /** Baton / limit: above 1 is slower for times, below 1 is slower for rates. */
  ratio: number;
  /** What the ratio compares, when the reference is not the machine's limit (default: "baton / machine limit"). */
  ratioLabel?: string;
  /** What the spec asks for, in words (e.g. "≥ 2,000 events/s"). */
  floor: string;
  pass: boolean;
  /** Extra figures worth printing (informational, no floor). */
  notes: string[];
}

/**
 * The read limit the spec's budgets were set against: "chunked read + JSON.parse: ~380,000
 * lines/s" (architecture.md, performance budgets). This machine's own limit moves with its load
 * (seen from ~240,000 to ~530,000 lines/s within an hour), and a floor in events/s moves with it.
 */
export const SPEC_READ_LIMIT = 380_000;

/** What a rate measured as `ratio` × this machine's read limit comes to at the spec's reference limit. */
export function atSpecReadLimit(ratio: number): string {
  return `at the spec's reference read limit (~${formatNumber(SPEC_READ_LIMIT)} lines/s) this ratio is ${formatNumber(ratio * SPEC_READ_LIMIT)} events/s`;
}

export function rate(events: number, ms: number): number {
  return ms > 0 ? (events * 1000) / ms : Number.POSITIVE_INFINITY;
}

export function formatNumber(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return String(value);
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function formatMeasure(m: Measure): string {
  const digits = m.unit === 'ms' ? 1 : m.unit === 'MB' ? 0 : 0;
  return `${formatNumber(m.value, digits)} ${m.unit}`;
}

export function formatRatio(ratio: number): string {
  return `${ratio.toFixed(2)}×`;
}

export function printResult(result: BenchResult): void {
  const lines = [
    `  baton : ${formatMeasure(result.baton).padEnd(20)} ${result.baton.detail}`,
    `  limit : ${formatMeasure(result.limit).padEnd(20)} ${result.limit.detail}`,
    `  ratio : ${formatRatio(result.ratio)} (${result.ratioLabel ?? 'baton / machine limit'})`,
    `  floor : ${result.floor}  →  ${result.pass ? 'PASS' : 'FAIL'}`,
    ...result.notes.map((n) => `  info  : ${n}`),
  ];
  console.log(lines.join('\n'));
}

export function printHeader(name: string, work: string): void {
  console.log(`\n== ${name}: ${work}`);
}

export function printSummary(results: readonly BenchResult[], failures: readonly { name: string; error: string }[]): void {
  const header = ['benchmark', 'baton', 'machine limit', 'ratio', 'floor', 'result'];
  const rows = results.map((r) => [r.name, formatMeasure(r.baton), formatMeasure(r.limit), formatRatio(r.ratio), r.floor, r.pass ? 'PASS' : 'FAIL']);
  for (const f of failures) rows.push([f.name, '-', '-', '-', '-', `ERROR: ${f.error}`]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join(' | ');
  console.log('\n== summary');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const row of rows) console.log(line(row));
}
