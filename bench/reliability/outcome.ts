/**
 * What every campaign reports: how many trials ran, and each kind of violation of the promise
 * "nothing acknowledged is lost or replaced, nothing half-written is visible, nothing typed escapes
 * the workspace, a refusal changes nothing, no failure is unexpected, nothing hangs". A campaign
 * passes when every violation count is zero.
 */
export interface CampaignResult {
  name: string;
  trials: number;
  /** Units of work the campaign checked (acknowledged events, invocations, flips). */
  checked: number;
  /** An acknowledged event missing from the log, or not there with the hash it was acknowledged with. */
  acknowledgedLost: number;
  /** A seq acknowledged with one hash that later held (or was acknowledged with) another. */
  reusedSeqs: number;
  partialBatches: number;
  exit1: number;
  /** A refusal (exit 2: the workspace; any other refusal: the log and every file outside .baton/) that changed something. */
  changedOnRefusal: number;
  writesOutside: number;
  /** A child killed by its time-out. */
  hung: number;
  /** Anything else the campaign asserts (a verify that failed, a flip not refused…). */
  otherFailures: number;
  /** The first few failures, described, to reproduce them. */
  examples: string[];
  /** How the invocations ended (the fuzzer): exit code → count, to show how deep it reached. */
  exits?: Record<string, number>;
  /** What the campaign covered beyond its trials, label → count, in the order first counted. */
  covered: Record<string, number>;
  seconds: number;
}

export function emptyResult(name: string): CampaignResult {
  return {
    name,
    trials: 0,
    checked: 0,
    acknowledgedLost: 0,
    reusedSeqs: 0,
    partialBatches: 0,
    exit1: 0,
    changedOnRefusal: 0,
    writesOutside: 0,
    hung: 0,
    otherFailures: 0,
    examples: [],
    covered: {},
    seconds: 0,
  };
}

export const VIOLATIONS = ['acknowledgedLost', 'reusedSeqs', 'partialBatches', 'exit1', 'changedOnRefusal', 'writesOutside', 'hung', 'otherFailures'] as const;
export type Violation = (typeof VIOLATIONS)[number];

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

/** Count one more of `label` in what the campaign covered. */
export function count(result: CampaignResult, label: string, by = 1): void {
  result.covered[label] = (result.covered[label] ?? 0) + by;
}

export function violations(result: CampaignResult): number {
  return VIOLATIONS.reduce((sum, kind) => sum + result[kind], 0);
}

export function formatTable(results: readonly CampaignResult[]): string {
  const header = [
    'campaign',
    'trials',
    'checked',
    'ack lost',
    'reused seq',
    'partial batch',
    'exit 1',
    'changed on refusal',
    'outside writes',
    'hung',
    'other',
    'seconds',
    'covered',
  ];
  const covered = (r: CampaignResult): string =>
    Object.entries(r.covered)
      .map(([label, n]) => `${label} ${n}`)
      .join(', ');
  const rows = results.map((r) =>
    [
      r.name,
      r.trials,
      r.checked,
      r.acknowledgedLost,
      r.reusedSeqs,
      r.partialBatches,
      r.exit1,
      r.changedOnRefusal,
      r.writesOutside,
      r.hung,
      r.otherFailures,
      r.seconds.toFixed(0),
      covered(r),
    ].map(String),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}
