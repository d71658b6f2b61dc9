/**
 * `npm run reliability -- [--trials N] [--library-trials N] [--storm KEYS] [--library-storm N]
 * [--flips N] [--invocations N] [--races N] [--racers N] [--seed S] [--only NAME…]`: the long
 * reliability campaign — SIGKILLed appenders through the built CLI and through the library, an
 * 8-process append storm racing idempotency keys through the CLI (and one through the library),
 * byte flips in every class of position, the CLI fuzzer, and claim races (8 `baton wu claim`
 * processes at one start gun, on JSONL and on PostgreSQL from two hosts) — printing one table, and
 * the claim races' figures beside it. Exit 1 when any campaign found a violation.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CAMPAIGNS, runCampaigns, type CampaignSizes } from './campaign.js';
import { formatClaimRaceTable, isClaimRaceResult } from './claim-race-check.js';
import { formatTable, reportViolationsTo, violations } from './outcome.js';

function parse(argv: readonly string[]): { sizes: CampaignSizes; seed: number; only: string[] } {
  const sizes: CampaignSizes = {
    cliCrashTrials: 1000,
    libraryCrashTrials: 500,
    stormProcesses: 8,
    stormKeys: 250,
    libraryStormAppends: 1000,
    flips: 100,
    invocations: 5000,
    claimRaces: 1000,
    claimRacers: 8,
  };
  let seed = Date.now() % 1_000_000;
  const only: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const next = (): number => {
      const value = Number(argv[++i]);
      if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${flag} needs a whole number`);
      return value;
    };
    if (flag === '--trials') sizes.cliCrashTrials = next();
    else if (flag === '--library-trials') sizes.libraryCrashTrials = next();
    else if (flag === '--storm') sizes.stormKeys = next();
    else if (flag === '--library-storm') sizes.libraryStormAppends = next();
    else if (flag === '--invocations') sizes.invocations = next();
    else if (flag === '--flips') sizes.flips = next();
    else if (flag === '--races') sizes.claimRaces = next();
    else if (flag === '--racers') sizes.claimRacers = next();
    else if (flag === '--seed') seed = next();
    else if (flag === '--only') only.push(argv[++i] ?? '');
    else throw new Error(`unknown option ${flag} (see bench/reliability/run.ts; --only takes a part of ${CAMPAIGNS.join(', ')})`);
  }
  if ((sizes.claimRacers ?? 8) < 2) throw new Error('--racers needs at least 2 (a race)');
  return { sizes, seed, only };
}

const { sizes, seed, only } = parse(process.argv.slice(2));
const root = mkdtempSync(join(tmpdir(), 'baton-reliability-'));
try {
  console.log(`reliability campaign, seed ${seed}: ${JSON.stringify(sizes)}`);
  reportViolationsTo((line) => console.log(line));
  const results = await runCampaigns({ sizes, seed, root, only, log: (line) => console.log(line) });
  const claimRaces = results.filter(isClaimRaceResult);
  // A store the claim races skipped has no row here (it passed nothing): the claim table says why.
  console.log(formatTable(results.filter((r) => !isClaimRaceResult(r) || r.claimRaces.skipped === undefined)));
  for (const r of results) if (r.exits) console.log(`  ${r.name}: exits ${JSON.stringify(r.exits)}`);
  if (claimRaces.length > 0) console.log(`claim races:\n${formatClaimRaceTable(claimRaces.map((r) => r.claimRaces))}`);
  process.exitCode = results.some((r) => violations(r) > 0) ? 1 : 0;
} finally {
  rmSync(root, { recursive: true, force: true });
}
