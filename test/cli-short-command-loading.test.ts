import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATON_BIN, batonIn, childEnv, jsonLines } from './helpers/cli.js';
import { makeTempDir, removeTempDirs } from './helpers/workspace.js';

/**
 * `baton mem inbox` is a short command (≤ 2 × `node -e 0`, architecture spec): with valid input it
 * must load neither zod nor `yaml` (~90 ms of module loading between them) — it validates with the
 * compiled validators and reads plain config.yaml without `yaml`. Invalid input still gets zod's
 * word-for-word error, loaded on demand.
 */

/** A module hook that records the file of every module the process loads. */
const RECORDER = `data:text/javascript,${encodeURIComponent(`
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`
  import { appendFileSync } from 'node:fs';
  export async function load(url, context, next) {
    if (url.startsWith('file:')) appendFileSync(process.env.BATON_TEST_LOADED, url + '\\\\n');
    return next(url, context);
  }
\`));
`)}`;

/** A preload that records each time something asks for process.stdout or process.stderr. */
const STREAM_RECORDER = `data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from 'node:fs';
for (const name of ['stdout', 'stderr']) {
  const own = Object.getOwnPropertyDescriptor(process, name);
  Object.defineProperty(process, name, { configurable: true, enumerable: true, get() { appendFileSync(process.env.BATON_TEST_STREAMS, name + '\\n'); return own.get.call(process); } });
}
`)}`;

/** The standard streams a run of the bin created (asked for), its exit code and output; stdout is a pipe. */
function streamsCreated(dir: string, args: readonly string[]): Promise<{ code: number | null; stdout: string; streams: string[] }> {
  const record = join(dir, `streams-${Math.random().toString(36).slice(2)}.txt`);
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', STREAM_RECORDER, BATON_BIN, '--dir', dir, ...args],
      { env: childEnv({ BATON_TEST_STREAMS: record }), encoding: 'utf8' },
      (error, stdout) => {
        if (error && typeof error.code !== 'number') return reject(error);
        let streams: string[] = [];
        try {
          streams = [...new Set(readFileSync(record, 'utf8').trim().split('\n'))];
        } catch {
          // none asked for
        }
        resolve({ code: error ? (error.code as number) : 0, stdout, streams });
      },
    );
  });
}

interface Run {
  code: number | null;
  stdout: string;
  loaded: string[];
}

function runRecorded(dir: string, args: readonly string[], input?: string): Promise<Run> {
  const record = join(dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['--import', RECORDER, BATON_BIN, '--dir', dir, ...args],
      { env: childEnv({ BATON_TEST_LOADED: record }), encoding: 'utf8' },
      (error, stdout) => {
        if (error && typeof error.code !== 'number') return reject(error);
        let loaded: string[] = [];
        try {
          loaded = readFileSync(record, 'utf8').trim().split('\n');
        } catch {
          // nothing recorded
        }
        resolve({ code: error ? (error.code as number) : 0, stdout, loaded });
      },
    );
    child.stdin?.end(input ?? '');
  });
}

/** The packages a run loaded, by the file names the bundle records in each chunk. */
function heavyPackages(run: Run): string[] {
  const found = new Set<string>();
  for (const url of run.loaded) {
    const text = readFileSync(fileURLToPath(url), 'utf8');
    for (const pkg of ['zod', 'yaml', 'xstate']) if (text.includes(`node_modules/${pkg}/`) || url.includes(`/node_modules/${pkg}/`)) found.add(pkg);
  }
  return [...found];
}

/**
 * The files of the bundled bin a run loaded, by name without the content hash: a short command
 * loads the bin, the shared runtime (the modules that must be one instance) and its own flattened
 * file, each file being a separate trip through Node's ESM loader.
 */
function binFiles(run: Run): string[] {
  const bin = new URL('.', `file://${BATON_BIN}`).href;
  return run.loaded.filter((url) => url.startsWith(bin)).map((url) => url.slice(bin.length).replace(/-[A-Z0-9]{8}\.js$/, '.js'));
}

describe('mem inbox loads neither zod nor yaml', () => {
  let dir: string;
  let reader: string;

  beforeAll(async () => {
    dir = makeTempDir();
    expect((await batonIn(dir, ['init', '--json'])).code).toBe(0);
    const sessions: string[] = [];
    for (const identity of ['agent:a', 'agent:b']) {
      const started = await batonIn(dir, ['session', 'start', '--json', '--agent-identity', identity]);
      expect(started.code).toBe(0);
      sessions.push((jsonLines(started.stdout).at(-1) as { session: { id: string } }).session.id);
    }
    reader = sessions[1]!;
    for (const message of ['one', 'two', 'three']) {
      expect((await batonIn(dir, ['--session', sessions[0]!, 'mem', 'signal', message, '--to', 'agent:b', '--json'])).code).toBe(0);
    }
    expect((await batonIn(dir, ['--session', sessions[0]!, 'mem', 'signal', 'to all', '--json'])).code).toBe(0);
  }, 120_000);

  afterAll(() => removeTempDirs());

  it('reading (--no-mark), then marking, then reading again', async () => {
    const peek = await runRecorded(dir, ['--session', reader, 'mem', 'inbox', '--no-mark', '--json']);
    expect(peek.code).toBe(0);
    expect((jsonLines(peek.stdout).at(-1) as { signals: unknown[] }).signals).toHaveLength(4);
    expect(peek.loaded.length).toBeGreaterThan(0);
    expect(heavyPackages(peek)).toEqual([]);
    expect(binFiles(peek)).toEqual(['baton.js', 'shared-runtime.js', 'mem-inbox.js']);

    const mark = await runRecorded(dir, ['--session', reader, 'mem', 'inbox', '--json']);
    expect(mark.code).toBe(0);
    expect((jsonLines(mark.stdout).at(-1) as { marked: number }).marked).toBe(4);
    expect(heavyPackages(mark)).toEqual([]);

    const again = await runRecorded(dir, ['--session', reader, 'mem', 'inbox', '--json']);
    expect((jsonLines(again.stdout).at(-1) as { signals: unknown[] }).signals).toHaveLength(0);
    expect(heavyPackages(again)).toEqual([]);
  });

  it("prints through the descriptor: Node's stdout and stderr streams (a socket for a pipe) are never created", async () => {
    const peek = await streamsCreated(dir, ['--session', reader, 'mem', 'inbox', '--no-mark', '--json']);
    expect(peek.code).toBe(0);
    expect(jsonLines(peek.stdout).at(-1)).toMatchObject({ type: 'inbox', reader_identity: 'agent:b' });
    expect(peek.streams).toEqual([]);
    // Commander prints help through process.stdout: the stream is created then, and flushed before exit.
    const help = await streamsCreated(dir, ['mem', '--help']);
    expect(help.code).toBe(0);
    expect(help.streams).toContain('stdout');
    expect(help.stdout).toContain('inbox');
  });

  it('invalid input loads zod for its error message', async () => {
    const bad = await runRecorded(dir, ['--session', reader, 'mem', 'inbox', '--intent', 'MAYBE', '--json']);
    expect(bad.code).toBe(2);
    expect(jsonLines(bad.stdout).at(-1)).toMatchObject({
      type: 'error',
      code: 'INVALID_INPUT',
      message: '--intent.0: must be one of INFO, PROPOSE, COUNTER, AGREE, REJECT',
    });
    expect(heavyPackages(bad)).toContain('zod');
  });
});

/**
 * The two status commands with a budget (architecture spec: `status` ≤ 3 × `node -e 0`;
 * `orchestrate status` of a large initiative ≤ 3 ×) run on compiled validators and the compiled
 * `wu` machine table: with a plain config and valid data they load neither zod, nor `yaml`, nor
 * xstate.
 */
describe('status and orchestrate status load neither zod, yaml nor xstate', () => {
  let dir: string;
  let session: string;

  beforeAll(async () => {
    dir = makeTempDir();
    expect((await batonIn(dir, ['init', '--json'])).code).toBe(0);
    const started = await batonIn(dir, ['session', 'start', '--json', '--agent-identity', 'agent:a']);
    session = (jsonLines(started.stdout).at(-1) as { session: { id: string } }).session.id;
    const created = await batonIn(dir, ['--session', session, 'task', 'create', '--label', 'scan', '--state', 'running', '--json']);
    const task = (jsonLines(created.stdout).at(-1) as { task: { id: string } }).task.id;
    expect((await batonIn(dir, ['--session', session, 'task', 'transition', task, 'blocked', '--reason', 'login expired', '--json'])).code).toBe(0);
    expect((await batonIn(dir, ['initiative', 'create', 'INIT-1', '--title', 'One', '--json'])).code).toBe(0);
    for (const [wu, deps] of [
      ['WU-1', []],
      ['WU-2', ['--deps', 'WU-1']],
    ] as const) {
      expect((await batonIn(dir, ['wu', 'create', wu, '--initiative', 'INIT-1', '--lane', 'Core', ...deps, '--json'])).code).toBe(0);
    }
    expect((await batonIn(dir, ['--session', session, 'wu', 'claim', 'WU-1', '--json'])).code).toBe(0);
  }, 120_000);

  afterAll(() => removeTempDirs());

  it('baton status', async () => {
    const run = await runRecorded(dir, ['--session', session, 'status', '--json']);
    expect(run.code).toBe(0);
    const envelope = jsonLines(run.stdout).at(-1) as {
      type: string;
      lastStoppingPoint: { activeTasks: { state: string }[] };
      baton: { initiatives: unknown[] };
    };
    expect(envelope.type).toBe('orchestration_status');
    expect(envelope.lastStoppingPoint.activeTasks.map((t) => t.state)).toEqual(['blocked']);
    expect(envelope.baton.initiatives).toHaveLength(1);
    expect(run.loaded.length).toBeGreaterThan(0);
    expect(heavyPackages(run)).toEqual([]);
    expect(binFiles(run)).toEqual(['baton.js', 'shared-runtime.js', 'status.js']);
  });

  it('baton orchestrate status', async () => {
    const run = await runRecorded(dir, ['orchestrate', 'status', 'INIT-1', '--json']);
    expect(run.code).toBe(0);
    const envelope = jsonLines(run.stdout).at(-1) as { type: string; wus: { wu_id: string; orchestration_state: string }[] };
    expect(envelope.type).toBe('initiative_status');
    expect(envelope.wus.map((w) => [w.wu_id, w.orchestration_state])).toEqual([
      ['WU-1', 'claimed'],
      ['WU-2', 'planned'],
    ]);
    expect(heavyPackages(run)).toEqual([]);
    expect(binFiles(run)).toEqual(['baton.js', 'shared-runtime.js', 'orchestrate.js']);
  });
});

/**
 * `baton hook claude-code PostToolUse` runs after every tool call (≤ 2 × `node -e 0` with nothing
 * new): with a known session and nothing unread it loads neither zod, yaml nor xstate.
 */
describe('hook claude-code PostToolUse with nothing new loads neither zod, yaml nor xstate', () => {
  let dir: string;
  const input = () =>
    JSON.stringify({ session_id: 'claude-fast', transcript_path: '/tmp/t.jsonl', cwd: dir, hook_event_name: 'PostToolUse', tool_name: 'Read' });

  beforeAll(async () => {
    dir = makeTempDir();
    expect((await batonIn(dir, ['init', '--json'])).code).toBe(0);
    const start = await batonIn(dir, ['hook', 'claude-code', 'SessionStart'], {
      input: JSON.stringify({ session_id: 'claude-fast', cwd: dir, hook_event_name: 'SessionStart', source: 'startup' }),
      env: { BATON_HOOK_DEADLINE_MS: '30000' },
    });
    expect(start.stdout).toContain('additionalContext');
    const other = await batonIn(dir, ['session', 'start', '--json']);
    const sender = (jsonLines(other.stdout).at(-1) as { session: { id: string } }).session.id;
    expect((await batonIn(dir, ['--session', sender, 'mem', 'signal', 'hello', '--to', 'Planck', '--json'])).code).toBe(0);
  }, 120_000);

  afterAll(() => removeTempDirs());

  it('delivers once, then answers nothing without loading them', async () => {
    const first = await runRecorded(dir, ['hook', 'claude-code', 'PostToolUse'], input());
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('hello');
    const quiet = await runRecorded(dir, ['hook', 'claude-code', 'PostToolUse'], input());
    expect([quiet.code, quiet.stdout]).toEqual([0, '']);
    expect(quiet.loaded.length).toBeGreaterThan(0);
    expect(heavyPackages(quiet)).toEqual([]);
    expect(binFiles(quiet)).toEqual(['baton.js', 'shared-runtime.js', 'hook-claude-code.js']);
  });
});

/**
 * `baton hook claude-code PreToolUse` runs before every edit (≤ 2 × `node -e 0`): allowing or
 * denying a write it loads neither zod, yaml nor xstate, and one file of its own.
 */
describe('hook claude-code PreToolUse loads neither zod, yaml nor xstate', () => {
  let dir: string;
  const input = (path: string) =>
    JSON.stringify({ session_id: 'claude-edit', cwd: dir, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: join(dir, path) } });

  beforeAll(async () => {
    dir = makeTempDir();
    expect((await batonIn(dir, ['initiative', 'create', 'INIT-1', '--title', 'One', '--lanes', 'L1', '--json'])).code).toBe(0);
    expect((await batonIn(dir, ['wu', 'create', 'WU-1', '--initiative', 'INIT-1', '--lane', 'L1', '--code-paths', 'src/**', '--json'])).code).toBe(0);
    const holder = (jsonLines((await batonIn(dir, ['session', 'start', '--json'])).stdout).at(-1) as { session: { id: string } }).session.id;
    expect((await batonIn(dir, ['--session', holder, 'wu', 'claim', 'WU-1', '--json'])).code).toBe(0);
  }, 120_000);

  afterAll(() => removeTempDirs());

  it('allows a free path and denies a reserved one without loading them', async () => {
    for (const [path, denied] of [
      ['notes.md', false],
      ['src/a.ts', true],
    ] as const) {
      const run = await runRecorded(dir, ['hook', 'claude-code', 'PreToolUse'], input(path));
      expect(run.code).toBe(0);
      expect(run.stdout.includes('"permissionDecision":"deny"')).toBe(denied);
      expect(heavyPackages(run)).toEqual([]);
      expect(binFiles(run)).toEqual(['baton.js', 'shared-runtime.js', 'hook-pre-tool-use.js']);
    }
  });
});
