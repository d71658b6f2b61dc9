import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { byteFlipCampaign } from './byte-flip.js';
import { crashCampaign, stormCampaign } from './crash.js';
import { fuzzCampaign } from './fuzz.js';
import type { CampaignResult } from './outcome.js';

/** How much of each campaign to run (the CI test runs a few; `npm run reliability` runs thousands). */
export interface CampaignSizes {
  crashTrials: number;
  stormProcesses: number;
  /** Appends per storm process. */
  stormAppends: number;
  flips: number;
  invocations: number;
}

export async function runCampaigns(options: { sizes: CampaignSizes; seed: number; root: string; only?: readonly string[]; log?: (line: string) => void }): Promise<CampaignResult[]> {
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
  if (wanted('crash') && options.sizes.crashTrials > 0) {
    results.push(
      await crashCampaign({
        trials: options.sizes.crashTrials,
        seed: options.seed,
        root: dir('crash'),
        onProgress: progressEvery(100, 'crash', 'trials'),
      }),
    );
  }
  if (wanted('storm') && options.sizes.stormAppends > 0) {
    results.push(await stormCampaign({ processes: options.sizes.stormProcesses, appends: options.sizes.stormAppends, root: dir('storm') }));
  }
  if (wanted('flip') && options.sizes.flips > 0) {
    results.push(await byteFlipCampaign({ flips: options.sizes.flips, seed: options.seed, root: dir('flip') }));
  }
  if (wanted('fuzz') && options.sizes.invocations > 0) {
    results.push(
      await fuzzCampaign({
        invocations: options.sizes.invocations,
        seed: options.seed,
        root: dir('fuzz'),
        parallel: 2,
        onProgress: progressEvery(500, 'fuzz', 'invocations'),
      }),
    );
  }
  return results;
}
