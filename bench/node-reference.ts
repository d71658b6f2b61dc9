import { formatNumber } from './report.js';

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
