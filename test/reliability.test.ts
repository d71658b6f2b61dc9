import { afterAll, describe, expect, it } from 'vitest';
import { runCampaigns, type CampaignSizes } from '../bench/reliability/campaign.js';
import { formatTable, violations, type CampaignResult } from '../bench/reliability/outcome.js';
import { makeTempDir, removeTempDirs } from './helpers/workspace.js';

/**
 * The reliability campaign of bench/reliability/, bounded for CI: the same code `npm run
 * reliability` runs for thousands of trials, with a few of each — `baton log append` children and
 * library appenders SIGKILLed beside bystanders, CLI processes racing the same idempotency keys, a
 * byte flip in each class of position, and the CLI fuzzer with a planted file link, an odd
 * workspace shape and a device file among its draws. Each must find no acknowledged loss, no
 * reused seq, no partial batch, no exit 1, no change after a refusal, no write outside the
 * workspace and no hang.
 */
afterAll(removeTempDirs);

const SEED = Number(process.env['BATON_RELIABILITY_SEED'] ?? 2311);

const NONE: CampaignSizes = { cliCrashTrials: 0, libraryCrashTrials: 0, stormProcesses: 0, stormKeys: 0, libraryStormAppends: 0, flips: 0, invocations: 0 };

async function run(name: string, sizes: Partial<CampaignSizes>): Promise<CampaignResult[]> {
  const results = await runCampaigns({ sizes: { ...NONE, ...sizes }, seed: SEED, root: makeTempDir(`baton-rel-${name}-`), only: [name] });
  console.log(formatTable(results));
  return results;
}

function expectClean(result: CampaignResult | undefined, minimum: number): CampaignResult {
  expect(result).toBeDefined();
  expect(result!.examples, result!.name).toEqual([]);
  expect(violations(result!)).toBe(0);
  expect(result!.checked).toBeGreaterThanOrEqual(minimum);
  return result!;
}

describe('reliability suite (bounded)', () => {
  it('crash through the CLI: 3 trials each SIGKILL a `baton log append` child; nothing acknowledged is lost or its seq reused', async () => {
    const [crash] = await run('cli-crash', { cliCrashTrials: 3 });
    expectClean(crash, 1);
    expect(crash!.trials).toBe(3);
    expect(crash!.covered['CLI appenders killed']).toBe(3);
    expect(crash!.covered['CLI appends acknowledged']).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it('crash through the library: 3 SIGKILL trials with bystanders lose nothing acknowledged and leave no partial batch', async () => {
    const [crash] = await run('library-crash', { libraryCrashTrials: 3 });
    expectClean(crash, 3);
    expect(crash!.trials).toBe(3);
  }, 120_000);

  it('storm through the CLI: 3 processes race 5 idempotency keys; each is stored once and every process got the same seqs', async () => {
    const [storm] = await run('cli-storm', { stormProcesses: 3, stormKeys: 5 });
    expectClean(storm, 5);
    expect(storm!.covered['keys raced by 2+ processes']).toBe(5);
    expect(storm!.covered['deduplicated answers']).toBeGreaterThanOrEqual(5);
  }, 120_000);

  it('storm through the library: 4 processes × 30 keyed appends (a third retried): each key stored once, no gap', async () => {
    const [storm] = await run('library-storm', { stormProcesses: 4, libraryStormAppends: 30 });
    expectClean(storm, 120);
  }, 120_000);

  it('byte flips: one in the first line, a middle line and the last line is refused; one of the final newline is repaired', async () => {
    const flips = await run('flip', { flips: 4 });
    expect(flips.map((r) => r.name)).toEqual(['byte flip: first line', 'byte flip: middle line', 'byte flip: last line', 'byte flip: final newline']);
    for (const flip of flips) expectClean(flip, 1);
    expect(flips[3]!.covered['repaired by the next append']).toBe(1);
  }, 120_000);

  it('CLI fuzzer: 30 invocations across every command, with planted file links, a workspace shape and a device file', async () => {
    const [random, links, shapes, devices] = await run('fuzz', { invocations: 30 });
    expectClean(random, 20);
    expectClean(links, 4);
    expectClean(shapes, 2);
    expectClean(devices, 1);
  }, 180_000);
});
