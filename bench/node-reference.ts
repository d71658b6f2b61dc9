import { formatNumber, type BenchResult } from './report.js';
import { median } from './support.js';

/**
 * What the rows held against `node -e 0` share: a clean environment for the commands they spawn,
 * the interleaved timing loop, and the limit column they print.
 */

/** The environment without settings under `prefixes` (BATON_* by default), so the caller's shell cannot steer the commands. */
export function envWithout(prefixes: readonly string[] = ['BATON_']): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !prefixes.some((prefix) => key.startsWith(prefix))) env[key] = value;
  return env;
}

/**
 * `node -e 0` and the command, interleaved (so drift on the machine hits both alike), `runs` of
 * each after two warm-up pairs. Each callback runs once and returns its wall time in ms.
 */
export function interleaveWithNode(runs: number, timeNodeReference: () => number, timeCommand: () => number): { nodeMs: number[]; commandMs: number[] } {
  for (let i = 0; i < 2; i++) {
    timeNodeReference();
    timeCommand();
  }
  const nodeMs: number[] = [];
  const commandMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    nodeMs.push(timeNodeReference());
    commandMs.push(timeCommand());
  }
  return { nodeMs, commandMs };
}

/** The limit column: the median of the `node -e 0` runs. */
export function nodeReferenceLimit(node: number, nodeMs: readonly number[]): { value: number; unit: string; detail: string } {
  return { value: node, unit: 'ms', detail: `median of ${nodeMs.length} runs of \`node -e 0\` (min ${formatNumber(Math.min(...nodeMs), 1)})` };
}

/**
 * A row held against `node -e 0`: the median of the command's runs, the median of `node -e 0`'s,
 * and their ratio against the spec's `maxRatio`. `runs` words the command's runs in the detail
 * (e.g. "runs of `node dist/bin/baton.js --version`"); `notes` may quote the node median.
 */
export function nodeRatioRow(
  spec: { name: string; work: string; maxRatio: number },
  timed: { nodeMs: readonly number[]; commandMs: readonly number[]; runs: string; work?: string },
  notes: (node: number) => string[],
): BenchResult {
  const node = median(timed.nodeMs);
  const value = median(timed.commandMs);
  const ratio = value / node;
  return {
    name: spec.name,
    work: timed.work ?? spec.work,
    baton: { value, unit: 'ms', detail: `median of ${timed.commandMs.length} ${timed.runs} (min ${formatNumber(Math.min(...timed.commandMs), 1)})` },
    limit: nodeReferenceLimit(node, timed.nodeMs),
    ratio,
    floor: `≤ ${spec.maxRatio}× node -e 0`,
    pass: ratio <= spec.maxRatio,
    notes: notes(node),
  };
}
