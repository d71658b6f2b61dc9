import { afterAll, describe, expect, it } from 'vitest';
import { runCampaigns } from '../bench/reliability/campaign.js';
import { formatTable, violations, type CampaignResult } from '../bench/reliability/outcome.js';
import { makeTempDir, removeTempDirs } from './helpers/workspace.js';

/**
 * #23 point 6, bounded for CI: the reliability suite of bench/reliability/ (the same code `npm run
 * reliability -- --trials N` runs for thousands of trials) with a few trials of each campaign —
 * SIGKILLed appenders with bystanders, an idempotent append storm, byte flips, and the CLI fuzzer
 * over every command. Each must find no acknowledged loss, no partial batch, no exit 1, no change
 * on exit 2 and no write outside the workspace.
 */
afterAll(removeTempDirs);

const SEED = Number(process.env['BATON_RELIABILITY_SEED'] ?? 2311);

function expectClean(result: CampaignResult | undefined, minimum: number): void {
  expect(result).toBeDefined();
  console.log(formatTable([result!]));
  expect(result!.examples, result!.name).toEqual([]);
  expect(violations(result!)).toBe(0);
  expect(result!.checked).toBeGreaterThanOrEqual(minimum);
}

describe('reliability suite (bounded)', () => {
  it('crash: 8 SIGKILL trials with bystanders lose nothing acknowledged and leave no partial batch', async () => {
    const [crash] = await runCampaigns({ sizes: { crashTrials: 8, stormProcesses: 0, stormAppends: 0, flips: 0, invocations: 0 }, seed: SEED, root: makeTempDir('baton-rel-crash-'), only: ['crash'] });
    expectClean(crash, 8);
    expect(crash!.trials).toBe(8);
  }, 120_000);

  it('storm: 4 processes × 40 keyed appends (a third retried): each key stored once, no gap', async () => {
    const [storm] = await runCampaigns({ sizes: { crashTrials: 0, stormProcesses: 4, stormAppends: 40, flips: 0, invocations: 0 }, seed: SEED, root: makeTempDir('baton-rel-storm-'), only: ['storm'] });
    expectClean(storm, 160);
  }, 120_000);

  it('byte flips: 5 flips after a healthy append are each refused by verify, show and append', async () => {
    const [flips] = await runCampaigns({ sizes: { crashTrials: 0, stormProcesses: 0, stormAppends: 0, flips: 5, invocations: 0 }, seed: SEED, root: makeTempDir('baton-rel-flip-'), only: ['flip'] });
    expectClean(flips, 5);
  }, 120_000);

  it('CLI fuzzer: 40 random and hostile invocations across every command', async () => {
    const [fuzz] = await runCampaigns({ sizes: { crashTrials: 0, stormProcesses: 0, stormAppends: 0, flips: 0, invocations: 40 }, seed: SEED, root: makeTempDir('baton-rel-fuzz-'), only: ['fuzz'] });
    expectClean(fuzz, 40);
  }, 180_000);
});
