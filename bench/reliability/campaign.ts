import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { byteFlipCampaign } from './byte-flip.js';
import { claimRaceCampaign, ClaimRaceStore } from './claim-races.js';
import { cliCrashCampaign } from './cli-crash.js';
import { cliStormCampaign } from './cli-storm.js';
import { fuzzCampaign } from './fuzz.js';
import { libraryCrashCampaign } from './library-crash.js';
import { libraryStormCampaign } from './library-storm.js';
import { violations, type CampaignResult } from './outcome.js';

/** How much of each campaign to run (the CI test runs a few; `npm run reliability` runs thousands). */
export interface CampaignSizes {
  /** Trials of the crash campaign through the CLI: each SIGKILLs a `baton log append` child. */
  cliCrashTrials: number;
  /** Trials of the crash campaign through the library: each SIGKILLs an in-process appender. */
  libraryCrashTrials: number;
  stormProcesses: number;
  /** Idempotency keys the processes of the CLI storm race. */
  stormKeys: number;
  /** Appends per process of the library storm. */
  libraryStormAppends: number;
  flips: number;
  invocations: number;
  /** Claim races on each store (JSONL, and PostgreSQL with two hosts): none when absent. */
  claimRaces?: number;
  /** Racers per claim race (default 8). */
  claimRacers?: number;
}

/** The campaigns, by the names `--only` matches (a part of the name is enough: `crash`, `cli`, `storm`, `claim`). */
export const CAMPAIGNS = ['cli-crash', 'library-crash', 'cli-storm', 'library-storm', 'flip', 'fuzz', 'claim-race-jsonl', 'claim-race-postgres'] as const;

export async function runCampaigns(options: {
  sizes: CampaignSizes;
  seed: number;
  root: string;
  only?: readonly string[];
  log?: (line: string) => void;
}): Promise<CampaignResult[]> {
  const wanted = (name: string): boolean => (options.only ?? []).length === 0 || options.only!.some((o) => name.includes(o));
  const results: CampaignResult[] = [];
  const dir = (name: string): string => {
    const path = join(options.root, name);
    mkdirSync(path, { recursive: true });
    return path;
  };
  /** A campaign's progress callback: a line every `every` units done. */
  const progressEvery =
    (every: number, campaign: string, units: string) =>
    (done: number): void => {
      if (done % every === 0) options.log?.(`  ${campaign}: ${done} ${units}`);
    };
  /** Keep a campaign's rows, and say at once how each went (a run stopped later still told them). */
  const finished = (...rows: CampaignResult[]): void => {
    for (const row of rows) {
      results.push(row);
      options.log?.(`  done: ${row.name}: ${row.trials} trials, ${violations(row)} violations, ${row.seconds.toFixed(0)} s`);
    }
  };
  const { sizes, seed } = options;
  if (wanted('cli-crash') && sizes.cliCrashTrials > 0) {
    finished(
      await cliCrashCampaign({
        trials: sizes.cliCrashTrials,
        seed,
        root: dir('cli-crash'),
        parallel: 2,
        onProgress: progressEvery(100, 'CLI crash', 'trials'),
      }),
    );
  }
  if (wanted('library-crash') && sizes.libraryCrashTrials > 0) {
    finished(
      await libraryCrashCampaign({
        trials: sizes.libraryCrashTrials,
        seed,
        root: dir('library-crash'),
        onProgress: progressEvery(100, 'library crash', 'trials'),
      }),
    );
  }
  if (wanted('cli-storm') && sizes.stormKeys > 0 && sizes.stormProcesses > 0) {
    finished(
      await cliStormCampaign({
        processes: sizes.stormProcesses,
        keys: sizes.stormKeys,
        seed,
        root: dir('cli-storm'),
        onProgress: progressEvery(250, 'CLI storm', 'invocations'),
      }),
    );
  }
  if (wanted('library-storm') && sizes.libraryStormAppends > 0 && sizes.stormProcesses > 0) {
    finished(await libraryStormCampaign({ processes: sizes.stormProcesses, appends: sizes.libraryStormAppends, root: dir('library-storm') }));
  }
  if (wanted('flip') && sizes.flips > 0) {
    finished(...(await byteFlipCampaign({ flips: sizes.flips, seed, root: dir('flip') })));
  }
  if (wanted('fuzz') && sizes.invocations > 0) {
    finished(
      ...(await fuzzCampaign({ invocations: sizes.invocations, seed, root: dir('fuzz'), parallel: 2, onProgress: progressEvery(500, 'fuzz', 'invocations') })),
    );
  }
  for (const store of [ClaimRaceStore.jsonl, ClaimRaceStore.postgres]) {
    if (!wanted(`claim-race-${store}`) || (sizes.claimRaces ?? 0) === 0) continue;
    finished(
      await claimRaceCampaign({
        store,
        races: sizes.claimRaces!,
        racers: sizes.claimRacers ?? 8,
        root: dir(`claim-race-${store}`),
        ...(options.log ? { log: options.log } : {}),
      }),
    );
  }
  return results;
}
