import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bestOf, compareRows, parseSummary, type SummaryRow } from './summary-table.js';

/**
 * `npm run bench:compare -- --against REF [--rounds N] [--tolerance P] [NAME…]`: the same bench
 * rows of an older build and of this one, in the same run on the same machine, alternated (old
 * first in odd rounds, new first in even ones), every round printed and the best round of each
 * compared (summary-table.ts says by which figure). REF is a git revision, checked out into a
 * temporary worktree and built there (`npm ci`, `npm run build`), or a folder that already holds
 * a built checkout. Exit 1 when a row of this build is worse than the older one's by more than
 * the tolerance (default 0%).
 */
const HERE = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Options {
  against: string;
  rounds: number;
  tolerance: number;
  rows: string[];
}

function usage(message?: string): never {
  if (message) console.error(`bench:compare: ${message}`);
  console.error('usage: node --expose-gc dist/bench/compare-builds.js --against REF|DIR [--rounds N] [--tolerance PERCENT] [NAME…]');
  process.exit(2);
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { against: '', rounds: 2, tolerance: 0, rows: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (): string => argv[++i] ?? usage(`${arg} needs a value`);
    if (arg === '--against') options.against = value();
    else if (arg === '--rounds') options.rounds = Number(value());
    else if (arg === '--tolerance') options.tolerance = Number(value());
    else if (arg === '--help' || arg === '-h') usage();
    else if (arg.startsWith('-')) usage(`unknown option ${arg}`);
    else options.rows.push(arg);
  }
  if (options.against === '') usage('--against is required');
  if (!Number.isSafeInteger(options.rounds) || options.rounds < 1) usage('--rounds must be a positive integer');
  if (!Number.isFinite(options.tolerance) || options.tolerance < 0) usage('--tolerance must be a non-negative number');
  return options;
}

function run(command: string, args: readonly string[], cwd: string): void {
  const r = spawnSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited with ${r.status}`);
}

/** A built checkout of `against`: the folder itself, or a temporary worktree of the revision (removed by `cleanup`). */
function checkout(against: string): { dir: string; label: string; cleanup: () => void } {
  if (existsSync(join(against, 'dist', 'bench', 'run.js'))) return { dir: resolve(against), label: against, cleanup: () => undefined };
  const dir = join(mkdtempSync(join(tmpdir(), 'baton-bench-against-')), 'checkout');
  console.log(`checking out ${against} into ${dir} and building it…`);
  run('git', ['worktree', 'add', '--detach', dir, against], HERE);
  const cleanup = (): void => {
    spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: HERE, stdio: 'ignore' });
    rmSync(dirname(dir), { recursive: true, force: true });
  };
  try {
    run('npm', ['ci', '--no-audit', '--no-fund'], dir);
    run('npm', ['run', 'build'], dir);
  } catch (error) {
    cleanup();
    throw error;
  }
  return { dir, label: against, cleanup };
}

function benchOnce(dir: string, rows: readonly string[]): SummaryRow[] {
  const r = spawnSync(process.execPath, ['--expose-gc', join(dir, 'dist', 'bench', 'run.js'), ...rows], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const parsed = parseSummary(r.stdout);
  if (parsed.length === 0) throw new Error(`the bench in ${dir} printed no summary (exit ${r.status}): ${(r.stderr || r.stdout).trim().slice(-500)}`);
  return parsed;
}

function main(): void {
  const options = parseOptions(process.argv.slice(2));
  const old = checkout(options.against);
  const builds = [
    { label: old.label, dir: old.dir, rounds: new Map<string, SummaryRow[]>() },
    { label: 'this build', dir: HERE, rounds: new Map<string, SummaryRow[]>() },
  ];
  try {
    for (let round = 1; round <= options.rounds; round++) {
      const order = round % 2 === 1 ? builds : [...builds].reverse();
      for (const build of order) {
        const rows = benchOnce(build.dir, options.rows);
        console.log(`round ${round}, ${build.label}: ${rows.map((r) => `${r.name} ${r.baton} (${r.ratio.toFixed(2)}×)`).join('; ')}`);
        for (const row of rows) build.rounds.set(row.name, [...(build.rounds.get(row.name) ?? []), row]);
      }
    }
  } finally {
    old.cleanup();
  }

  const [before, after] = builds as [(typeof builds)[0], (typeof builds)[0]];
  const names = [...new Set([...after.rounds.keys(), ...before.rounds.keys()])];
  const table: string[][] = [['benchmark', `before (${before.label})`, 'after (this build)', 'change', 'verdict']];
  let worse = 0;
  for (const name of names) {
    const a = before.rounds.get(name);
    const b = after.rounds.get(name);
    if (a === undefined || b === undefined) {
      table.push([name, a ? bestOf(a).baton : '-', b ? bestOf(b).baton : '-', '-', `only in ${a ? before.label : 'this build'}`]);
      continue;
    }
    const c = compareRows(bestOf(a), bestOf(b), options.tolerance);
    if (!c.atLeastAsGood) worse += 1;
    table.push([name, c.before, c.after, `${c.gainPercent >= 0 ? '+' : ''}${c.gainPercent.toFixed(1)}%`, c.atLeastAsGood ? 'at least as good' : 'WORSE']);
  }
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  console.log(
    `\n== best of ${options.rounds} round(s) each; change: positive is better (ratio to node -e 0 for wall times, the figure itself otherwise); tolerance ${options.tolerance}%`,
  );
  for (const [i, row] of table.entries()) {
    console.log(
      row
        .map((cell, k) => cell.padEnd(widths[k]!))
        .join(' | ')
        .trimEnd(),
    );
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  }
  if (worse > 0) process.exitCode = 1;
}

main();
