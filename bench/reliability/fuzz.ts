import { cpSync, mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Command, Option } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { pick, runCli, seeded } from './cli.js';
import { emptyResult, record, type CampaignResult } from './outcome.js';
import { changedPaths, snapshotTree } from './tree.js';

/**
 * The CLI fuzzer: every command of the program (read from commander's own tree, so a new command
 * is fuzzed without being listed here), called with random and hostile arguments — huge, unicode,
 * control characters, traversal ids, numbers out of range, broken JSON, hostile paths (into
 * `.baton/`, through symlinks to outside, /dev/null, dangling links, below a file, too long) — in
 * workspaces where some of Baton's own folders were replaced by symlinks to outside.
 *
 * Each invocation must: never exit 1 (or die of a signal, or hang); on exit 2 leave the workspace
 * as it was (its `.baton/cache/`, which only holds rebuildable snapshots, aside); and never create
 * or change a file outside the workspace other than one its arguments name (an export's `--out`).
 */
interface Leaf {
  path: string[];
  options: { flag: string; takesValue: boolean }[];
  args: { name: string; required: boolean; variadic: boolean }[];
}

/** Commands that follow forever unless told otherwise: fuzzed with their one-shot flag. */
const FOLLOWING: Record<string, { drop: string[]; add: string[] }> = {
  'log tail': { drop: ['--follow', '-f'], add: [] },
  'mem watch': { drop: [], add: ['--once'] },
};

/**
 * Servers that run until interrupted, whatever their arguments: not fuzzed here (each would hold its
 * invocation to the time-out). `serve` has its own tests of binding, token, read-only and traversal
 * (test/serve/); `mcp` ends when its stdin closes, so it stays in.
 */
const LONG_RUNNING = new Set(['serve']);

export function commandLeaves(): Leaf[] {
  const leaves: Leaf[] = [];
  const walk = (command: Command, path: string[]): void => {
    const children = command.commands as Command[];
    if (children.length === 0) {
      const options = (command.options as Option[])
        .filter((o) => o.long !== undefined && o.long !== '--help')
        .map((o) => ({ flag: o.long!, takesValue: o.required || o.optional }));
      const args = command.registeredArguments.map((a) => ({ name: a.name(), required: a.required, variadic: a.variadic }));
      leaves.push({ path, options, args });
      return;
    }
    for (const child of children) if (!LONG_RUNNING.has(child.name())) walk(child, [...path, child.name()]);
  };
  walk(buildProgram(), []);
  return leaves;
}

interface Fixture {
  seedWorkspace: string;
  ids: { session: string; session2: string; task: string; thread: string; signal: string };
}

/** One epoch's own folders: its workspace, a folder outside it, and the current directory it runs in. */
interface Place {
  ws: string;
  outside: string;
  scratch: string;
}

const NOW = '2026-03-01T12:00:00Z';
/** No command may take this long on the small workspaces fuzzed here. */
const TIMEOUT_MS = 90_000;

/** A workspace with a little of everything (sessions, a signal, an initiative with WUs, a task, a flow). */
async function seedWorkspace(root: string): Promise<Fixture> {
  const seedDir = join(root, 'seed');
  mkdirSync(seedDir, { recursive: true });
  const run = async (args: string[]): Promise<unknown> => {
    const r = await runCli(['--json', '--dir', seedDir, ...args], { env: { BATON_NOW: NOW } });
    if (r.code !== 0) throw new Error(`seeding: baton ${args.join(' ')} exited ${r.code}: ${r.stdout}${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n')[0]!);
  };
  await run(['init']);
  const s1 = ((await run(['session', 'start', '--client', 'codex', '--agent-identity', 'codex:impl', '--goal', 'fuzz'])) as { session: { id: string } }).session.id;
  const s2 = ((await run(['session', 'start', '--client', 'claude-code', '--agent-identity', 'claude:rev'])) as { session: { id: string } }).session.id;
  const signal = (await run(['--session', s1, 'mem', 'signal', 'proposal', '--to', s2, '--intent', 'PROPOSE'])) as { signal: { signal_id: string; thread_id: string } };
  await run(['initiative', 'create', 'INIT-1', '--title', 'Fuzz', '--lanes', 'Core,Docs']);
  await run(['wu', 'create', 'WU-1', '--initiative', 'INIT-1', '--lane', 'Core', '--title', 'one', '--code-paths', 'src/**']);
  await run(['wu', 'create', 'WU-2', '--initiative', 'INIT-1', '--lane', 'Docs', '--title', 'two', '--deps', 'WU-1']);
  const task = ((await run(['--session', s1, 'task', 'create', '--label', 'fuzzing'])) as { task?: { id?: string }; id?: string });
  await run(['log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"seed"}']);
  return {
    seedWorkspace: seedDir,
    ids: { session: s1, session2: s2, task: task.task?.id ?? task.id ?? 'task_000000000000000000000000', thread: signal.signal.thread_id, signal: signal.signal.signal_id },
  };
}

function plausible(random: () => number, name: string, fx: Fixture, { ws, outside }: Place): string {
  const n = name.toLowerCase();
  if (n.includes('session') || n.includes('to') || n.includes('recipient')) return pick(random, [fx.ids.session, fx.ids.session2, 'codex:impl', 'Planck']);
  if (n.includes('thread')) return fx.ids.thread;
  if (n.includes('reply') || n.includes('signal')) return fx.ids.signal;
  if (n.includes('task') || n.includes('parent')) return fx.ids.task;
  if (n.includes('wu') || n.includes('deps') || n === 'id') return pick(random, ['WU-1', 'WU-2', 'WU-3']);
  if (n.includes('initiative') || n.includes('init')) return 'INIT-1';
  if (n.includes('lane')) return pick(random, ['Core', 'Docs']);
  if (n.includes('data') || n.includes('json')) return '{"text":"fuzz"}';
  if (n.includes('type')) return pick(random, ['note.recorded', 'wu.claimed', 'nope.nope']);
  if (n.includes('stream')) return pick(random, ['note/ops', 'wu/WU-1']);
  if (n.includes('out')) return join(outside, `export-${Math.floor(random() * 1e6)}.jsonl`);
  if (n.includes('events') || n.includes('file') || n.includes('path')) return join(ws, '.baton', 'log', '000000000001.jsonl');
  if (n.includes('from') || n.includes('to') || n.includes('version') || n.includes('count') || n === 'n' || n.includes('lines') || n.includes('progress')) {
    return pick(random, ['1', '2', '5', '40%']);
  }
  if (n.includes('at') || n.includes('now') || n.includes('since')) return pick(random, [NOW, '2026-03-01T11:00:00Z']);
  return pick(random, ['fuzz', 'hello world', 'PROPOSE', 'passed', 'running']);
}

function hostile(random: () => number, { ws, outside }: Place): string {
  const huge = 'A'.repeat(100_000);
  return pick(random, [
    '',
    ' ',
    '-',
    '--',
    huge,
    `{"text":"${huge}"}`,
    '日本語 🎉 \u202e\u0301 ÿ',
    '\u001b[31mred\u001b[0m\r\n\t',
    '\n',
    '\u0007\u0008\u007f',
    '../../../../../../etc/passwd',
    'WU-1/../../../x',
    'session_../../x',
    '..',
    '.',
    '/',
    join(ws, '.baton', 'log', '000000000001.jsonl'),
    join('.baton', 'log', 'x.jsonl'),
    join(ws, '.baton'),
    join(ws, 'link-out', 'x.jsonl'),
    join(ws, 'dangling'),
    join(ws, 'plain.txt', 'below'),
    join(outside, 'precious.txt'),
    join(outside, 'n'.repeat(300)),
    '/dev/null',
    '-1',
    '0',
    '99999999999999999999',
    '1e309',
    'NaN',
    '0x10',
    '{"a":',
    '{}',
    '[]',
    'null',
    '%s%n%x',
    '$(id)',
    '`id`',
    '*',
  ]);
}

/** Replace some of Baton's own folders by symlinks to a folder outside, and plant other traps. */
function plantTraps(random: () => number, { ws, outside }: Place): void {
  const target = join(outside, 'planted');
  mkdirSync(target, { recursive: true });
  writeFileSync(join(outside, 'precious.txt'), 'must never change\n');
  symlinkSync(outside, join(ws, 'link-out'));
  symlinkSync(join(ws, 'nowhere'), join(ws, 'dangling'));
  writeFileSync(join(ws, 'plain.txt'), 'a file\n');
  for (const owned of [join('.baton', 'artifacts'), join('.baton', 'stamps'), '.claude', join('.baton', 'quarantine'), join('.baton', 'cache')]) {
    if (random() >= 0.3) continue;
    rmSync(join(ws, owned), { recursive: true, force: true });
    symlinkSync(target, join(ws, owned));
  }
}

/** The real path of `path`, through links, for as much of it as exists. */
function realish(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realish(parent), basename(path));
  }
}

function insideOf(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || !(rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel));
}

export interface FuzzOptions {
  invocations: number;
  seed: number;
  root: string;
  /** Invocations sharing one fresh copy of the seeded workspace. */
  epoch?: number;
  parallel?: number;
  onProgress?: (done: number) => void;
}

export async function fuzzCampaign(options: FuzzOptions): Promise<CampaignResult> {
  const started = Date.now();
  const result = emptyResult('cli fuzzer');
  result.exits = {};
  const fx = await seedWorkspace(options.root);
  const seedBefore = snapshotTree(fx.seedWorkspace);
  const leaves = commandLeaves();
  const epoch = options.epoch ?? 25;
  const parallel = Math.max(1, options.parallel ?? 1);
  let done = 0;
  let epochIndex = 0;
  const runEpoch = async (index: number, count: number, lane: () => number): Promise<void> => {
    const home = join(options.root, `e-${index}`);
    const place: Place = { ws: join(home, 'ws'), outside: join(home, 'outside'), scratch: join(home, 'scratch') };
    const ws = place.ws;
    for (const dir of [place.outside, place.scratch]) mkdirSync(dir, { recursive: true });
    cpSync(fx.seedWorkspace, ws, { recursive: true, verbatimSymlinks: true });
    plantTraps(lane, place);
    const notWorkspace = (rel: string): boolean => rel === 'ws' || rel.startsWith(`ws${sep}`);
    const skipInWorkspace = (rel: string): boolean => rel === join('.baton', 'cache') || rel.startsWith(join('.baton', 'cache') + sep);
    for (let i = 0; i < count; i++) {
      const leaf = pick(lane, leaves);
      const key = leaf.path.join(' ');
      const args: string[] = [];
      const named: string[] = [];
      const value = (name: string): string => {
        let v = lane() < 0.5 ? plausible(lane, name, fx, place) : hostile(lane, place);
        // `--dir /` would make the machine's root the workspace (init writes /.baton there): the
        // one hostile value a sandboxed run cannot take.
        if (name === '--dir' && v === '/') v = '.';
        // Only what an invocation is asked to write may change outside its workspace.
        if (name === '--out' || name === '--dir') named.push(v);
        return v;
      };
      args.push(lane() < 0.5 ? '--json' : '--human');
      if (lane() < 0.92) args.push('--dir', ws);
      else args.push('--dir', value('--dir'));
      if (lane() < 0.5) args.push('--session', lane() < 0.7 ? pick(lane, [fx.ids.session, fx.ids.session2]) : value('--session'));
      args.push(...leaf.path);
      for (const arg of leaf.args) {
        if (!arg.required && lane() < 0.4) continue;
        args.push(value(arg.name));
        if (arg.variadic && lane() < 0.3) args.push(value(arg.name));
      }
      const follow = FOLLOWING[key];
      for (const option of leaf.options) {
        if (follow?.drop.includes(option.flag) || lane() >= 0.35) continue;
        args.push(option.flag);
        if (option.takesValue) args.push(value(option.flag));
      }
      if (follow) args.push(...follow.add);
      if (lane() < 0.03) args.push('--no-such-flag');
      const env: Record<string, string> = { BATON_NOW: lane() < 0.95 ? NOW : 'yesterday' };
      const beforeWs = snapshotTree(ws, skipInWorkspace);
      const beforeHome = snapshotTree(home, notWorkspace);
      const r = await runCli(args, { env, cwd: place.scratch, timeoutMs: TIMEOUT_MS });
      const shown = `baton ${args.map((a) => (a.length > 60 ? `${JSON.stringify(a.slice(0, 40))}…(${a.length})` : JSON.stringify(a))).join(' ')} → ${r.code ?? r.signal}`;
      result.checked += 1;
      const exit = String(r.code ?? r.signal);
      result.exits![exit] = (result.exits![exit] ?? 0) + 1;
      if (r.timedOut) {
        // A hang is a failure too, told apart from exit 1: on a machine this loaded (the long run
        // goes at nice 19) a process can also be starved that long, so it is re-run once alone.
        const again = await runCli(args, { env, cwd: place.scratch, timeoutMs: TIMEOUT_MS });
        if (again.timedOut) record(result, 'otherFailures', `${shown}: hung (killed after ${TIMEOUT_MS / 1000} s, twice)`);
        else if (again.code === 1 || again.code === null) record(result, 'exit1', `${shown} (on a re-run after a time-out): ${(again.stdout + again.stderr).slice(0, 300)}`);
      } else if (r.code === 1 || r.code === null) {
        const message = (r.stdout + r.stderr).slice(0, 300).replace(/\s+/g, ' ');
        record(result, 'exit1', `${shown}: ${message}`);
      }
      if (r.code === 2) {
        const changed = changedPaths(beforeWs, snapshotTree(ws, skipInWorkspace));
        if (changed.length > 0) record(result, 'changedOnExit2', `${shown}: changed ${changed.slice(0, 3).join(', ')}`);
      }
      // What the arguments name may be written: an export's --out, and a --dir (the workspace the
      // user named, which init and log import create when missing), with everything inside it.
      const allowed = named.filter((p) => p.trim() !== '').map((p) => realish(resolve(place.scratch, p)));
      const outside = changedPaths(beforeHome, snapshotTree(home, notWorkspace))
        .map((rel) => join(home, rel))
        .filter((path) => !allowed.some((a) => insideOf(a, path)));
      if (outside.length > 0) record(result, 'writesOutside', `${shown}: wrote ${outside.slice(0, 3).join(', ')}`);
      done += 1;
      options.onProgress?.(done);
    }
    rmSync(home, { recursive: true, force: true });
  };
  const lanes = Array.from({ length: parallel }, (_, i) => seeded(options.seed * 31 + i + 1));
  let remaining = options.invocations;
  while (remaining > 0) {
    const batch: Promise<void>[] = [];
    for (let lane = 0; lane < parallel && remaining > 0; lane++) {
      const count = Math.min(epoch, remaining);
      remaining -= count;
      batch.push(runEpoch(epochIndex++, count, lanes[lane]!));
    }
    await Promise.all(batch);
    result.trials += batch.length;
  }
  const seedChanged = changedPaths(seedBefore, snapshotTree(fx.seedWorkspace));
  if (seedChanged.length > 0) record(result, 'writesOutside', `the seed workspace (outside every epoch) changed: ${seedChanged.slice(0, 3).join(', ')}`);
  result.seconds = (Date.now() - started) / 1000;
  return result;
}
