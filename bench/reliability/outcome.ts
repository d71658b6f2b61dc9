/**
 * What every campaign reports: how many trials ran, and each kind of violation of the promise
 * "nothing acknowledged is lost, nothing half-written is visible, nothing typed escapes the
 * workspace, no failure is unexpected". A campaign passes when every violation count is zero.
 */
export interface CampaignResult {
  name: string;
  trials: number;
  /** Units of work the campaign checked (acknowledged events, invocations, flips). */
  checked: number;
  acknowledgedLost: number;
  partialBatches: number;
  exit1: number;
  changedOnExit2: number;
  writesOutside: number;
  /** Anything else the campaign asserts (a verify that failed, a flip not refused…). */
  otherFailures: number;
  /** The first few failures, described, to reproduce them. */
  examples: string[];
  /** How the invocations ended (the fuzzer): exit code → count, to show how deep it reached. */
  exits?: Record<string, number>;
  seconds: number;
}

export function emptyResult(name: string): CampaignResult {
  return { name, trials: 0, checked: 0, acknowledgedLost: 0, partialBatches: 0, exit1: 0, changedOnExit2: 0, writesOutside: 0, otherFailures: 0, examples: [], seconds: 0 };
}

export type Violation = 'acknowledgedLost' | 'partialBatches' | 'exit1' | 'changedOnExit2' | 'writesOutside' | 'otherFailures';

/** Where violations are told as they are found (the long run prints them at once). */
let onViolation: ((line: string) => void) | undefined;
export function reportViolationsTo(sink: ((line: string) => void) | undefined): void {
  onViolation = sink;
}

export function record(result: CampaignResult, kind: Violation, example: string): void {
  result[kind] += 1;
  onViolation?.(`  ${result.name}: ${kind}: ${example}`);
  if (result.examples.length < 8) result.examples.push(`${kind}: ${example}`);
}

export function violations(result: CampaignResult): number {
  return result.acknowledgedLost + result.partialBatches + result.exit1 + result.changedOnExit2 + result.writesOutside + result.otherFailures;
}

export function formatTable(results: readonly CampaignResult[]): string {
  const header = ['campaign', 'trials', 'checked', 'ack lost', 'partial batch', 'exit 1', 'changed on exit 2', 'outside writes', 'other', 'seconds'];
  const rows = results.map((r) => [r.name, r.trials, r.checked, r.acknowledgedLost, r.partialBatches, r.exit1, r.changedOnExit2, r.writesOutside, r.otherFailures, r.seconds.toFixed(0)].map(String));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}
