import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Command, Option } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { pick, runCli, seeded } from './cli.js';
import { DEVICE_DRAWS, DEVICE_READERS, DEVICE_TIMEOUT_MS, DEVICES, deviceDraw } from './device-inputs.js';
import { checkedInvocation, type InvocationCheck } from './fuzz-invocation.js';
import { FILE_LINKS, plantTraps, type Place } from './fuzz-traps.js';
import { count, emptyResult, record, type CampaignResult } from './outcome.js';
import { changedPaths, snapshotTree } from './tree.js';
import { shapeDraw, WORKSPACE_SHAPES } from './workspace-shapes.js';

/**
 * The CLI fuzzer: every command of the program (read from commander's own tree, so a new command
 * is fuzzed without being listed here), called with random and hostile arguments — huge, unicode,
 * control characters, traversal ids, numbers out of range, broken JSON, hostile paths (into
 * `.baton/`, through symlinks to outside, /dev/null, dangling links, below a file, too long) — in
 * workspaces where some of Baton's own folders were replaced by symlinks to outside.
 *
 * Each epoch (a fresh copy of a seeded workspace) also draws, in turn, what random arguments rarely
 * reach: links planted at the files Baton writes outside `.baton/`, each followed by the command
 * that writes it (fuzz-traps.ts); a workspace of an odd shape (workspace-shapes.ts); and, every
 * other epoch, a device file given as a command's input (device-inputs.ts). Each kind of draw is
 * reported on its own row.
 *
 * Every invocation must pass fuzz-invocation.ts's checks: never exit 1 (or die of a signal, or
 * hang), a refusal changes nothing, and nothing is written outside the workspace but what its
 * arguments name.
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
  const s1 = ((await run(['session', 'start', '--client', 'codex', '--agent-identity', 'codex:impl', '--goal', 'fuzz'])) as { session: { id: string } }).session
    .id;
  const s2 = ((await run(['session', 'start', '--client', 'claude-code', '--agent-identity', 'claude:rev'])) as { session: { id: string } }).session.id;
  const signal = (await run(['--session', s1, 'mem', 'signal', 'proposal', '--to', s2, '--intent', 'PROPOSE'])) as {
    signal: { signal_id: string; thread_id: string };
  };
  await run(['initiative', 'create', 'INIT-1', '--title', 'Fuzz', '--lanes', 'Core,Docs']);
  await run(['wu', 'create', 'WU-1', '--initiative', 'INIT-1', '--lane', 'Core', '--title', 'one', '--code-paths', 'src/**']);
  await run(['wu', 'create', 'WU-2', '--initiative', 'INIT-1', '--lane', 'Docs', '--title', 'two', '--deps', 'WU-1']);
  const task = (await run(['--session', s1, 'task', 'create', '--label', 'fuzzing'])) as { task?: { id?: string }; id?: string };
  await run(['log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"seed"}']);
  return {
    seedWorkspace: seedDir,
    ids: {
      session: s1,
      session2: s2,
      task: task.task?.id ?? task.id ?? 'task_000000000000000000000000',
      thread: signal.signal.thread_id,
      signal: signal.signal.signal_id,
    },
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

export interface FuzzOptions {
  invocations: number;
  seed: number;
  root: string;
  /** Invocations sharing one fresh copy of the seeded workspace. */
  epoch?: number;
  parallel?: number;
  onProgress?: (done: number) => void;
}

/** The rows of the fuzzer's report, one per kind of draw. */
interface FuzzResults {
  random: CampaignResult;
  links: CampaignResult;
  shapes: CampaignResult;
  devices: CampaignResult;
}

export async function fuzzCampaign(options: FuzzOptions): Promise<CampaignResult[]> {
  const started = Date.now();
  const results: FuzzResults = {
    random: emptyResult('fuzz: random invocations'),
    links: emptyResult('fuzz: planted file links'),
    shapes: emptyResult('fuzz: workspace shapes'),
    devices: emptyResult('fuzz: device inputs'),
  };
  for (const r of Object.values(results)) r.exits = {};
  // Every kind a row counts, listed from the start (in order, with 0 until drawn).
  for (const link of FILE_LINKS) count(results.links, link.label, 0);
  for (const shape of WORKSPACE_SHAPES) count(results.shapes, shape, 0);
  for (const device of DEVICES) count(results.devices, device, 0);
  for (const reader of DEVICE_READERS) count(results.devices, reader.label, 0);
  const fx = await seedWorkspace(options.root);
  const seedBefore = snapshotTree(fx.seedWorkspace);
  const leaves = commandLeaves();
  const epoch = options.epoch ?? 25;
  const parallel = Math.max(1, options.parallel ?? 1);
  let done = 0;
  let epochIndex = 0;
  const drawn = new Set<string>();
  const progress = (): void => {
    done += 1;
    options.onProgress?.(done);
  };
  /** A draw of its own kind, timed into its row. */
  const special = async (row: CampaignResult, args: string[], check: InvocationCheck, place: Place): Promise<void> => {
    const begun = Date.now();
    await checkedInvocation(args, { BATON_NOW: NOW }, place, row, check);
    row.trials += 1;
    row.seconds += (Date.now() - begun) / 1000;
    progress();
  };
  const runEpoch = async (index: number, invocations: number, lane: () => number): Promise<void> => {
    const home = join(options.root, `e-${index}`);
    const place: Place = { home, ws: join(home, 'ws'), outside: join(home, 'outside'), scratch: join(home, 'scratch') };
    const ws = place.ws;
    for (const dir of [place.outside, place.scratch]) mkdirSync(dir, { recursive: true });
    cpSync(fx.seedWorkspace, ws, { recursive: true, verbatimSymlinks: true });
    const links = [FILE_LINKS[(2 * index) % FILE_LINKS.length]!, FILE_LINKS[(2 * index + 1) % FILE_LINKS.length]!];
    count(results.random, 'folder links planted', plantTraps(lane, place, links));
    let left = invocations;
    // Each planted file link, with the command that writes its file: refused, the file it points at untouched.
    for (const link of links) {
      count(results.links, link.label);
      if (left-- > 0)
        await special(results.links, ['--json', '--dir', ws, ...link.command], { exits: [3], named: [], timeoutMs: TIMEOUT_MS, rerunOnTimeout: true }, place);
    }
    if (left-- > 0) {
      const shape = WORKSPACE_SHAPES[index % WORKSPACE_SHAPES.length]!;
      count(results.shapes, shape);
      const draw = shapeDraw(shape, lane, fx.seedWorkspace, place, index);
      await special(results.shapes, draw.args, { ...draw.check, timeoutMs: TIMEOUT_MS, rerunOnTimeout: true }, place);
    }
    if (index % 2 === 0 && left-- > 0) {
      const pairing = DEVICE_DRAWS[(index / 2) % DEVICE_DRAWS.length]!;
      count(results.devices, pairing.device);
      count(results.devices, pairing.reader.label);
      const draw = deviceDraw(pairing, lane, place, index);
      // No re-run: a refusal is immediate, and a reader that reads on eats memory while it runs.
      await special(results.devices, draw.args, { ...draw.check, timeoutMs: DEVICE_TIMEOUT_MS, rerunOnTimeout: false }, place);
    }
    for (; left > 0; left--) {
      const leaf = pick(lane, leaves);
      const key = leaf.path.join(' ');
      drawn.add(key);
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
      // What the arguments name may be written: an export's --out, and a --dir (the workspace the
      // user named, which init and log import create when missing), with everything inside it.
      await checkedInvocation(args, env, place, results.random, { named, timeoutMs: TIMEOUT_MS, rerunOnTimeout: true });
      progress();
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
    results.random.trials += batch.length;
  }
  const seedChanged = changedPaths(seedBefore, snapshotTree(fx.seedWorkspace));
  if (seedChanged.length > 0)
    record(results.random, 'writesOutside', `the seed workspace (outside every epoch) changed: ${seedChanged.slice(0, 3).join(', ')}`);
  count(results.random, 'commands drawn', drawn.size);
  count(results.random, 'fuzzed invocations in all', done);
  results.random.seconds = (Date.now() - started) / 1000;
  return [results.random, results.links, results.shapes, results.devices];
}
