/**
 * `npm run reliability -- [--trials N] [--invocations N] [--flips N] [--storm N] [--seed S] [--only NAME…]`:
 * the long reliability campaign (#23): crash trials, an append storm, byte flips and the CLI fuzzer,
 * against the built CLI and store, printing one table. Exit 1 when any campaign found a violation.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCampaigns, type CampaignSizes } from './campaign.js';
import { formatTable, reportViolationsTo, violations } from './outcome.js';

function parse(argv: readonly string[]): { sizes: CampaignSizes; seed: number; only: string[] } {
  const sizes: CampaignSizes = { crashTrials: 1000, stormProcesses: 8, stormAppends: 1000, flips: 100, invocations: 5000 };
  let seed = Date.now() % 1_000_000;
  const only: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const next = (): number => {
      const value = Number(argv[++i]);
      if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${flag} needs a whole number`);
      return value;
    };
    if (flag === '--trials') sizes.crashTrials = next();
    else if (flag === '--invocations') sizes.invocations = next();
    else if (flag === '--flips') sizes.flips = next();
    else if (flag === '--storm') sizes.stormAppends = next();
    else if (flag === '--seed') seed = next();
    else if (flag === '--only') only.push(argv[++i] ?? '');
    else throw new Error(`unknown option ${flag} (see bench/reliability/run.ts)`);
  }
  return { sizes, seed, only };
}

const { sizes, seed, only } = parse(process.argv.slice(2));
const root = mkdtempSync(join(tmpdir(), 'baton-reliability-'));
try {
  console.log(`reliability campaign, seed ${seed}: ${JSON.stringify(sizes)}`);
  reportViolationsTo((line) => console.log(line));
  const results = await runCampaigns({ sizes, seed, root, only, log: (line) => console.log(line) });
  console.log(formatTable(results));
  for (const r of results) if (r.exits) console.log(`  ${r.name}: exits ${JSON.stringify(r.exits)}`);
  process.exitCode = results.some((r) => violations(r) > 0) ? 1 : 0;
} finally {
  rmSync(root, { recursive: true, force: true });
}
