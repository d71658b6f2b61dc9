import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { closeSync, constants, openSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { batonIn, errorEnvelopeOf, runBaton, type CliResult } from './helpers/cli.js';
import { hashTree, makeTempDir, removeTempDirs, segmentBytes, sharedSetup } from './helpers/workspace.js';

/**
 * Every file and stdin Baton reads is read with a limit, and a path that is neither a regular file
 * nor a named pipe the user named (a character device such as /dev/zero or /dev/full, a folder, a
 * socket) is refused before it is opened: exit 2 INVALID_INPUT naming the flag or argument, the path
 * and what it is (or the limit and how much was read), nothing written. And a workspace whose store
 * folders are unusable (`.baton` or `.baton/log|cache|quarantine` a file, a file system that will not
 * create them) is exit 5 STORE_UNAVAILABLE naming the path, a `--dir` that is no folder exit 2: never
 * exit 1. Children reading devices have a timeout, so a regression (an endless read) fails here
 * instead of hanging the suite.
 */
const writers: ChildProcess[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const writer of writers.splice(0)) writer.kill('SIGKILL');
  for (const server of servers.splice(0)) server.close();
});
afterAll(removeTempDirs);

const NOW = { BATON_NOW: '2026-12-01T10:00:00Z' };
const CHILD_TIMEOUT_MS = 20_000;
const MiB = 1024 * 1024;

const noteLine = (text: string): string => JSON.stringify({ type: 'note.recorded', stream: 'note/ops', data: { text } });

function expectRefused(r: CliResult, exit: number, code: string, ...named: string[]): void {
  expect(r.signal, `killed: ${r.stderr.slice(0, 400)}`).toBeNull();
  expect(r.code, r.stdout.slice(0, 800) + r.stderr.slice(0, 800)).toBe(exit);
  const error = errorEnvelopeOf(r);
  expect(error.code).toBe(code);
  for (const part of named) expect(error.message).toContain(part);
}

/** A workspace with two events in its log (appended once, copied for each use). */
const withEvents = sharedSetup('baton-bounded-', async (dir) => {
  const r = await batonIn(dir, ['--json', 'log', 'append', '--events', '-', '--batch'], { env: NOW, input: `${noteLine('a')}\n${noteLine('b')}\n` });
  expect(r.code, r.stdout + r.stderr).toBe(0);
});
async function workspaceWithEvents(): Promise<string> {
  return (await withEvents()).dir;
}

/** An initialised workspace with an empty log (what `log import` needs; initialised once, copied for each use). */
const initialised = sharedSetup('baton-bounded-empty-', async (dir) => {
  expect((await batonIn(dir, ['--json', 'init'], { env: NOW })).code).toBe(0);
});
async function emptyWorkspace(): Promise<string> {
  return (await initialised()).dir;
}

/** A named pipe outside any workspace (hashTree would block reading one). */
function makeFifo(): string {
  const path = join(makeTempDir('baton-fifo-'), 'input.pipe');
  execFileSync('mkfifo', [path]);
  return path;
}

/** A child that writes `shell` output into the pipe (it blocks until Baton opens it; killed after the test). */
function feedFifo(fifo: string, shell: string, ...args: string[]): void {
  const writer = spawn('sh', ['-c', `${shell} > "$0"`, fifo, ...args], { stdio: 'ignore' });
  writer.on('error', () => undefined);
  writers.push(writer);
}

/** Release a writer still waiting to open the pipe, so nothing is left blocked after a refusal. */
function releaseFifo(fifo: string): void {
  try {
    closeSync(openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK));
  } catch {
    // gone already
  }
}

/** A listening Unix socket (a path that is neither a file nor a pipe). */
async function makeSocket(): Promise<string> {
  const path = join(makeTempDir('baton-socket-'), 'input.sock');
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return path;
}

interface Reader {
  name: string;
  args: (path: string) => string[];
  /** The flag or argument the message names (wu import names the file in its failure list). */
  field: string | undefined;
  /** `log import` needs an empty store. */
  workspace: () => Promise<string>;
  /** wu import reads a folder's *.yaml files: a folder is no refusal there. */
  refusesFolder: boolean;
}

const READERS: Reader[] = [
  { name: 'log append --events', args: (p) => ['log', 'append', '--events', p], field: '--events', workspace: workspaceWithEvents, refusesFolder: true },
  { name: 'log import', args: (p) => ['log', 'import', p], field: 'file', workspace: emptyWorkspace, refusesFolder: true },
  { name: 'wu import', args: (p) => ['wu', 'import', p], field: undefined, workspace: workspaceWithEvents, refusesFolder: false },
];

describe('a device, a folder or a socket is refused before it is read: exit 2 naming the path and what it is, nothing written', () => {
  it.each(READERS.map((reader) => [reader.name, reader] as const))('%s: /dev/zero, /dev/full, /dev/urandom, a socket, a folder', async (_name, reader) => {
    const ws = await reader.workspace();
    const before = hashTree(ws);
    const cases: { path: string; kind: string }[] = [
      { path: '/dev/zero', kind: 'character device' },
      { path: '/dev/full', kind: 'character device' },
      { path: '/dev/urandom', kind: 'character device' },
      { path: await makeSocket(), kind: 'socket' },
      ...(reader.refusesFolder ? [{ path: makeTempDir('baton-a-folder-'), kind: 'folder' }] : []),
    ];
    for (const { path, kind } of cases) {
      const r = await batonIn(ws, ['--json', ...reader.args(path)], { env: NOW, timeoutMs: CHILD_TIMEOUT_MS });
      expectRefused(r, 2, 'INVALID_INPUT', path, kind, ...(reader.field !== undefined ? [`${reader.field}: `] : []));
      expect(hashTree(ws), `${reader.name} ${path}`).toEqual(before);
    }
  });

  it('a named pipe the user names is read; one that never ends stops at its limit (line and whole input)', async () => {
    const ws = await workspaceWithEvents();
    const events = join(makeTempDir('baton-events-'), 'events.jsonl');
    writeFileSync(events, `${noteLine('through a pipe')}\n`);
    const fifo = makeFifo();
    feedFifo(fifo, 'exec cat "$1"', events);
    const ok = await batonIn(ws, ['--json', 'log', 'append', '--events', fifo], { env: NOW, timeoutMs: CHILD_TIMEOUT_MS });
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(segmentBytes(ws).toString('utf8')).toContain('through a pipe');

    const before = hashTree(ws);
    // Endless zeros, no newline: the line limit stops the read.
    const zeros = makeFifo();
    feedFifo(zeros, 'exec cat /dev/zero');
    const line = await batonIn(ws, ['--json', 'log', 'append', '--events', zeros], { env: NOW, timeoutMs: CHILD_TIMEOUT_MS });
    releaseFifo(zeros);
    expectRefused(line, 2, 'INVALID_INPUT', '--events: ', zeros, 'line 1', '1 MiB', 'stopped after reading');
    // Endless short lines: the limit of the whole input stops it.
    const lines = makeFifo();
    feedFifo(lines, 'exec yes "$1"', noteLine('again'));
    const whole = await batonIn(ws, ['--json', 'log', 'append', '--events', lines], { env: NOW, timeoutMs: CHILD_TIMEOUT_MS });
    releaseFifo(lines);
    expectRefused(whole, 2, 'INVALID_INPUT', '--events: ', lines, '64 MiB', 'stopped after reading');
    // A WU YAML through a pipe: at most 1 MiB.
    const yaml = makeFifo();
    feedFifo(yaml, 'exec yes "$1"', 'title: x');
    const wu = await batonIn(ws, ['--json', 'wu', 'import', yaml], { env: NOW, timeoutMs: CHILD_TIMEOUT_MS });
    releaseFifo(yaml);
    expectRefused(wu, 2, 'INVALID_INPUT', yaml, '1 MiB', 'stopped after reading');
    expect(hashTree(ws)).toEqual(before);
  });
});

describe('a file or stdin over its limit: exit 2 naming the flag, the limit and how much was read, nothing appended', () => {
  it('log append --events FILE: a file over 64 MiB, a line over 1 MiB', async () => {
    const ws = await workspaceWithEvents();
    const before = hashTree(ws);
    const folder = makeTempDir('baton-big-');
    const big = join(folder, 'big.jsonl');
    // Sparse: 64 MiB + 1 byte without writing them.
    writeFileSync(big, '');
    truncateSync(big, 64 * MiB + 1);
    expectRefused(
      await batonIn(ws, ['--json', 'log', 'append', '--events', big], { env: NOW, timeoutMs: CHILD_TIMEOUT_MS }),
      2,
      'INVALID_INPUT',
      '--events: ',
      big,
      '64 MiB',
      '67,108,865 bytes',
    );
    const long = join(folder, 'long.jsonl');
    writeFileSync(long, `${noteLine('fine')}\n${noteLine('x'.repeat(MiB))}\n`);
    expectRefused(
      await batonIn(ws, ['--json', 'log', 'append', '--events', long], { env: NOW, timeoutMs: CHILD_TIMEOUT_MS }),
      2,
      'INVALID_INPUT',
      '--events: ',
      long,
      'line 2',
      '1 MiB',
      'stopped after reading',
    );
    expect(hashTree(ws)).toEqual(before);
  });

  it('log append --events - (stdin): more than 64 MiB of valid lines, and a line over 1 MiB', async () => {
    const ws = await workspaceWithEvents();
    const before = hashTree(ws);
    const line = `${noteLine('piped')}\n`;
    const input = Buffer.from(line.repeat(Math.ceil((64 * MiB + 1) / line.length)));
    const whole = await batonIn(ws, ['--json', 'log', 'append', '--events', '-', '--batch'], { env: NOW, input, timeoutMs: CHILD_TIMEOUT_MS * 3 });
    expectRefused(whole, 2, 'INVALID_INPUT', '--events: stdin', '64 MiB', 'stopped after reading');
    const long = await batonIn(ws, ['--json', 'log', 'append', '--events', '-'], {
      env: NOW,
      input: `${noteLine('y'.repeat(MiB + 10))}\n`,
      timeoutMs: CHILD_TIMEOUT_MS,
    });
    expectRefused(long, 2, 'INVALID_INPUT', '--events: stdin', 'line 1', '1 MiB', 'stopped after reading');
    expect(hashTree(ws)).toEqual(before);
  });

  it('log import FILE and - (stdin): a line over 16 MiB; the target store stays empty', async () => {
    const ws = await emptyWorkspace();
    const before = hashTree(ws);
    const file = join(makeTempDir('baton-import-'), 'export.jsonl');
    writeFileSync(file, 'z'.repeat(16 * MiB + 1));
    expectRefused(
      await batonIn(ws, ['--json', 'log', 'import', file], { env: NOW, timeoutMs: CHILD_TIMEOUT_MS }),
      2,
      'INVALID_INPUT',
      'file: ',
      file,
      'line 1',
      '16 MiB',
      'stopped after reading',
    );
    const piped = await batonIn(ws, ['--json', 'log', 'import', '-'], { env: NOW, input: Buffer.alloc(17 * MiB, 0x7a), timeoutMs: CHILD_TIMEOUT_MS });
    expectRefused(piped, 2, 'INVALID_INPUT', 'file: stdin', 'line 1', '16 MiB', 'stopped after reading');
    expect(hashTree(ws)).toEqual(before);
  });

  it('wu import: a YAML file over 1 MiB is named with the limit and its size', async () => {
    const ws = await workspaceWithEvents();
    const before = hashTree(ws);
    const yaml = join(makeTempDir('baton-yaml-'), 'WU-1.yaml');
    writeFileSync(yaml, `id: WU-1\ntitle: Big\nlane: L1\nstatus: ready\ndescription: ${'d'.repeat(MiB)}\n`);
    const size = (MiB + 'id: WU-1\ntitle: Big\nlane: L1\nstatus: ready\ndescription: \n'.length).toLocaleString('en-US');
    expectRefused(
      await batonIn(ws, ['--json', 'wu', 'import', yaml], { env: NOW, timeoutMs: CHILD_TIMEOUT_MS }),
      2,
      'INVALID_INPUT',
      'WU-1.yaml',
      '1 MiB',
      size,
    );
    expect(hashTree(ws)).toEqual(before);
  });

  it('hook claude-code: a hook input over 64 MiB on stdin is refused naming the limit (exit 0, as every hook failure), nothing recorded', async () => {
    const ws = await workspaceWithEvents();
    const before = hashTree(ws);
    const r = await runBaton(['hook', 'claude-code', 'PostToolUse'], {
      cwd: ws,
      env: { ...NOW, CLAUDE_PROJECT_DIR: ws, BATON_HOOK_DEADLINE_MS: '60000' },
      input: Buffer.alloc(64 * MiB + 1, 0x20),
      timeoutMs: CHILD_TIMEOUT_MS,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('hook input: stdin: is over the 64 MiB limit');
    expect(hashTree(ws)).toEqual(before);
  });
});

/** Where each workspace shape comes from, and what each command must answer there. */
interface Outcome {
  exit: number;
  code?: string;
  named?: string[];
}

const COMMANDS: Record<string, readonly string[]> = {
  init: ['init'],
  'log append': ['log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"x"}'],
  'log show': ['log', 'show'],
  'log verify': ['log', 'verify'],
  status: ['status'],
  'wu list': ['wu', 'list'],
  'mem inbox': ['mem', 'inbox'],
};
const WRITES = new Set(['init', 'log append']);

interface Shape {
  name: string;
  /** The --dir to run in; `inspect` is what must stay unchanged (undefined: nothing to hash). */
  make: () => Promise<{ dir: string; inspect: string | undefined }>;
  expect: (command: string, dir: string) => Outcome;
}

/** A workspace with two events whose store folder `part` is replaced by a regular file. */
async function withFileAt(part: string): Promise<{ dir: string; inspect: string }> {
  const dir = await workspaceWithEvents();
  rmSync(join(dir, part), { recursive: true, force: true });
  writeFileSync(join(dir, part), 'not a folder\n');
  return { dir, inspect: dir };
}

const storeUnusable = (path: string): Outcome => ({ exit: 5, code: 'STORE_UNAVAILABLE', named: [path] });

const SHAPES: Shape[] = [
  {
    name: '.baton is a file',
    make: async () => {
      const dir = makeTempDir('baton-shape-');
      writeFileSync(join(dir, '.baton'), 'not a folder\n');
      return { dir, inspect: dir };
    },
    expect: (_command, dir) => storeUnusable(join(dir, '.baton')),
  },
  { name: '.baton/log is a file', make: () => withFileAt('.baton/log'), expect: (_command, dir) => storeUnusable(join(dir, '.baton', 'log')) },
  // Reads need no cache (it is safe to delete) and no quarantine: they answer; writes, which make sure
  // every store folder is there, are refused.
  {
    name: '.baton/cache is a file',
    make: () => withFileAt('.baton/cache'),
    expect: (command, dir) => (WRITES.has(command) ? storeUnusable(join(dir, '.baton', 'cache')) : { exit: 0 }),
  },
  {
    name: '.baton/quarantine is a file',
    make: () => withFileAt('.baton/quarantine'),
    expect: (command, dir) => (WRITES.has(command) ? storeUnusable(join(dir, '.baton', 'quarantine')) : { exit: 0 }),
  },
  {
    name: '--dir is a regular file',
    make: async () => {
      const base = makeTempDir('baton-shape-');
      writeFileSync(join(base, 'plain.txt'), 'x');
      return { dir: join(base, 'plain.txt'), inspect: base };
    },
    expect: (_command, dir) => ({ exit: 2, code: 'INVALID_INPUT', named: ['--dir', dir] }),
  },
  {
    name: '--dir is below a file',
    make: async () => {
      const base = makeTempDir('baton-shape-');
      writeFileSync(join(base, 'plain.txt'), 'x');
      return { dir: join(base, 'plain.txt', 'below'), inspect: base };
    },
    expect: (_command, dir) => ({ exit: 2, code: 'INVALID_INPUT', named: ['--dir', dir] }),
  },
  {
    // A folder whose file system will not make .baton/ in it (mkdir: ENOENT).
    name: '--dir /proc/self',
    make: async () => ({ dir: '/proc/self', inspect: undefined }),
    expect: (command) =>
      WRITES.has(command)
        ? storeUnusable('/proc/self/.baton')
        : ['status', 'wu list'].includes(command)
          ? { exit: 0 } // tasks.md T25: no store is an answer for status (and an empty list)
          : { exit: 2, code: 'NO_WORKSPACE', named: ['/proc/self'] },
  },
];

describe('odd workspace shapes: exit 5 (the store unusable) or 2 (--dir unusable) naming the path, never 1, nothing written', () => {
  // A property over the shapes for each command: every run, each command meets one shape of its own
  // (so every shape is met by some command) and others drawn at random; the runs cover the matrix.
  it.each(Object.keys(COMMANDS).map((command, i) => [command, i] as const))('%s', async (command, i) => {
    const meet = async (shape: Shape): Promise<void> => {
      const { dir, inspect } = await shape.make();
      const before = inspect !== undefined ? hashTree(inspect) : undefined;
      const r = await runBaton(['--json', '--dir', dir, ...COMMANDS[command]!], { env: NOW, timeoutMs: CHILD_TIMEOUT_MS });
      const want = shape.expect(command, dir);
      const label = `${command} where ${shape.name}: ${r.stdout.slice(0, 600)}${r.stderr.slice(0, 600)}`;
      expect(r.code, label).toBe(want.exit);
      if (want.code !== undefined) {
        const error = errorEnvelopeOf(r);
        expect(error.code, label).toBe(want.code);
        for (const part of want.named ?? []) expect(error.message, label).toContain(part);
      }
      if (inspect !== undefined) expect(hashTree(inspect), label).toEqual(before);
    };
    await fc.assert(fc.asyncProperty(fc.constantFrom(...SHAPES), meet), { numRuns: 3, examples: [[SHAPES[i % SHAPES.length]!]] });
  });

  it('a store folder that is a file is named in human mode too (one line on stderr, exit 5)', async () => {
    const { dir } = await withFileAt('.baton/log');
    const r = await batonIn(dir, ['--human', 'log', 'show']);
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(
      `baton: STORE_UNAVAILABLE: the store folder ${join(dir, '.baton', 'log')} cannot be used: it is a file, not a folder (move it away, then run \`baton init\`); nothing was written\n`,
    );
  });
});
