import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { formatNumber, type BenchResult } from './report.js';
import { median, noteText, PROJECT_ROOT, withTempDir } from './support.js';

export const SHORT_COMMAND = {
  name: 'short-command',
  work: 'a short command: `baton --version`',
  maxRatio: 2,
};

export const BATON_BIN = join(PROJECT_ROOT, 'dist', 'bin', 'baton.js');

/** The environment without BATON_* settings, so the caller's shell cannot steer the commands. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('BATON_')) env[key] = value;
  return env;
}

/** Wall time of one `node ARGS` run, in ms; throws when it fails. */
function timeNode(args: readonly string[], env: NodeJS.ProcessEnv): number {
  const start = performance.now();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env, cwd: PROJECT_ROOT });
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${result.status}: ${String(result.stderr).trim() || String(result.stdout).trim()}`);
  return ms;
}

/**
 * `node dist/bin/baton.js --version` against `node -e 0`, interleaved, `runs` of each after two
 * warm-up runs; medians compared. `baton log append` (a real durable append through the bundled
 * CLI, into a fresh workspace) is reported as information.
 */
export async function benchShortCommand(options: { runs: number }): Promise<BenchResult> {
  if (!existsSync(BATON_BIN)) throw new Error(`${BATON_BIN} is missing: build it with \`node scripts/bundle-cli.mjs\` (or npm run build)`);
  const env = cleanEnv();
  const nodeArgs = ['-e', '0'];
  const versionArgs = [BATON_BIN, '--version'];
  for (let i = 0; i < 2; i++) {
    timeNode(nodeArgs, env);
    timeNode(versionArgs, env);
  }
  const nodeMs: number[] = [];
  const versionMs: number[] = [];
  for (let i = 0; i < options.runs; i++) {
    nodeMs.push(timeNode(nodeArgs, env));
    versionMs.push(timeNode(versionArgs, env));
  }

  const appendMs = await withTempDir('short-command', async (dir) => {
    timeNode([BATON_BIN, 'init', '--dir', dir, '--json'], env);
    const times: number[] = [];
    for (let i = 0; i < Math.max(5, Math.ceil(options.runs / 2)); i++) {
      const data = JSON.stringify({ text: noteText(`cli${i}`) });
      times.push(timeNode([BATON_BIN, 'log', 'append', '--dir', dir, '--json', '--type', 'note.recorded', '--stream', 'note/bench', '--data', data], env));
    }
    return times;
  });

  const node = median(nodeMs);
  const version = median(versionMs);
  const append = median(appendMs);
  const ratio = version / node;
  return {
    name: SHORT_COMMAND.name,
    work: SHORT_COMMAND.work,
    baton: { value: version, unit: 'ms', detail: `median of ${options.runs} runs of \`node dist/bin/baton.js --version\` (min ${formatNumber(Math.min(...versionMs), 1)})` },
    limit: { value: node, unit: 'ms', detail: `median of ${options.runs} runs of \`node -e 0\` (min ${formatNumber(Math.min(...nodeMs), 1)})` },
    ratio,
    floor: `≤ ${SHORT_COMMAND.maxRatio}× node -e 0`,
    pass: ratio <= SHORT_COMMAND.maxRatio,
    notes: [
      `\`baton log append\` (init'd workspace, durable append): median ${formatNumber(append, 1)} ms over ${appendMs.length} runs = ${(append / node).toFixed(2)}× node -e 0 (no floor)`,
    ],
  };
}
