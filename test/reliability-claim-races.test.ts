import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ClaimRaceTally, formatClaimRaceTable, type RacerOutcome } from '../bench/reliability/claim-race-check.js';
import { violations } from '../bench/reliability/outcome.js';
import { childEnv } from './helpers/cli.js';
import { findPostgresBin } from './helpers/postgres-cluster.js';

/**
 * The claim races of `npm run reliability` (bench/reliability/claim-races.ts), bounded for CI: a few
 * races of 8 `baton wu claim` processes at one start gun, through the campaign's own entry
 * (run.ts, as the README names it), on JSONL and on PostgreSQL from two workspaces; and the
 * checker fed a planted double winner, so the check is seen to fail.
 */
const RUN = fileURLToPath(new URL('../bench/reliability/run.ts', import.meta.url));

function reliability(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', RUN, ...args],
      { env: childEnv(), encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, timeout: 600_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

/** The claim table's row of `store`, its cells. */
function row(stdout: string, store: string): string[] {
  const line = stdout.split('\n').find((l) => l.startsWith(`| ${store} `));
  expect(line, stdout).toBeDefined();
  return line!
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());
}

/** Races, racers, double winners, no winner, losers not naming the winner, log ≠ 1 claim. */
function expectClean(cells: string[], races: number): void {
  expect(cells.slice(1, 7)).toEqual([String(races), '8', '0', '0', '0', '0']);
  // p50 / p99 (n …) for winners, losers and the uncontended claims, all measured.
  expect(cells[7]).toMatch(new RegExp(`^\\d+ / \\d+ \\(n ${races}\\)$`));
  expect(cells[8]).toMatch(new RegExp(`^\\d+ / \\d+ \\(n ${races * 7}\\)$`));
  expect(cells[9]).toMatch(/^\d+ \/ \d+ \(n [12]\)$/);
}

describe('claim races (bounded)', () => {
  it('JSONL: 5 races of 8 CLI processes each have exactly one winner, every loser exits 4 naming it, the log holds one claim', async () => {
    const run = await reliability(['--races', '5', '--only', 'claim-race-jsonl']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expectClean(row(run.stdout, 'jsonl'), 5);
    expect(run.stdout).toContain('losers naming the winner 35');
  }, 600_000);

  it.skipIf(!findPostgresBin())(
    'PostgreSQL: 3 races of 8 processes from two workspaces on one database, each with one winner named by every loser',
    async () => {
      const run = await reliability(['--races', '3', '--only', 'claim-race-postgres']);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expectClean(row(run.stdout, 'postgres'), 3);
      expect(run.stdout).toContain('(host-a, host-b)');
    },
    600_000,
  );

  it('the checker catches a planted double winner, a loser that does not name the winner and a log with two claims', () => {
    const racer = (session: string, code: number, output = ''): RacerOutcome => ({
      session,
      host: 'workspace',
      code,
      signal: null,
      timedOut: false,
      output,
      ms: 100,
    });
    const refusal = (holder: string): string =>
      JSON.stringify({ v: 1, type: 'error', code: 'ALREADY_CLAIMED', message: `WU-1 is claimed by live session ${holder}`, details: { claimed_by: holder } });
    const clean = new ClaimRaceTally('jsonl', 3);
    clean.add({ wu: 'WU-1', racers: [racer('s1', 0), racer('s2', 4, refusal('s1')), racer('s3', 4, refusal('s1'))] }, 1);
    clean.checkLog(new Map([['WU-1', ['s1']]]));
    expect(violations(clean.finish(1))).toBe(0);

    const planted = new ClaimRaceTally('jsonl', 3);
    planted.add({ wu: 'WU-1', racers: [racer('s1', 0), racer('s2', 0), racer('s3', 4, refusal('s1'))] }, 1);
    planted.add({ wu: 'WU-2', racers: [racer('s1', 0), racer('s2', 4, refusal('s9')), racer('s3', 4, 'CONFLICT')] }, 1);
    planted.checkLog(
      new Map([
        ['WU-1', ['s1', 's2']],
        ['WU-2', ['s1']],
      ]),
    );
    const result = planted.finish(2);
    expect(result.claimRaces).toMatchObject({ races: 2, doubleWinners: 1, losersNotNaming: 2, logMismatches: 1 });
    expect(violations(result)).toBe(4);
    expect(result.examples[0]).toContain('WU-1: 2 winners (s1, s2)');
    expect(formatClaimRaceTable([result.claimRaces])).toMatch(/\| jsonl +\| 2 +\| 3 +\| 1 +\| 0 +\| 2 +\| 1 +\|/);
  });
});
