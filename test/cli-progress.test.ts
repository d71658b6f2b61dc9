import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppendedEnvelope } from '../src/app/envelopes/foundation.js';
import { BATON_BIN, batonIn, childEnv, jsonLines } from './helpers/cli.js';
import { makeTempDir, removeTempDirs } from './helpers/workspace.js';

/**
 * Long work shows progress to a person: on stderr, only when stderr is a terminal and the output
 * is human text, never with --quiet, in JSON mode or when piped. Driven on a real pseudo-terminal
 * (util-linux `script`), with stdout sent to a file so what reaches the terminal is stderr alone.
 * BATON_PROGRESS_AFTER_MS=0 shows the line at once (by default it waits a second, so a short
 * command never flickers). Batched appends print one summary unless --each.
 */
afterAll(removeTempDirs);

const ERASE = '\r\x1b[2K';
let workspace = '';

const noteLine = (i: number): string => JSON.stringify({ type: 'note.recorded', stream: `note/p${i % 3}`, data: { text: `n ${i}` } });
const notes = (n: number): string => Array.from({ length: n }, (_, i) => noteLine(i)).join('\n') + '\n';

/** Run baton on a pseudo-terminal with stdout to `out`: what the terminal shows is baton's stderr. */
function onTerminal(args: string[], env: Record<string, string> = {}): { terminal: string; stdout: string } {
  const out = join(makeTempDir('baton-progress-out-'), 'stdout.txt');
  const command = [process.execPath, BATON_BIN, ...args].map((a) => `'${a}'`).join(' ') + ` > '${out}'`;
  const terminal = execFileSync('script', ['-qec', command, '/dev/null'], { env: childEnv(env), encoding: 'utf8', input: '' });
  return { terminal, stdout: readFileSync(out, 'utf8') };
}

/** The frames a terminal showed: the text between erase-line sequences. */
function framesOf(terminal: string): string[] {
  return terminal.split(ERASE).filter((f) => f !== '');
}

/**
 * Run each command in turn on one pseudo-terminal (one `script`), each with its stdout to a file:
 * what the terminal shows between them is each command's stderr.
 */
function onTerminalEach(commands: string[][], env: Record<string, string> = {}): { terminal: string; stdout: string }[] {
  const dir = makeTempDir('baton-progress-out-');
  const marker = '@@next@@';
  const script = commands
    .map((args, i) => [process.execPath, BATON_BIN, ...args].map((a) => `'${a}'`).join(' ') + ` > '${join(dir, `${i}.txt`)}'; printf '${marker}'`)
    .join('; ');
  const terminal = execFileSync('script', ['-qec', script, '/dev/null'], { env: childEnv(env), encoding: 'utf8', input: '' });
  return terminal
    .split(marker)
    .slice(0, commands.length)
    .map((text, i) => ({ terminal: text, stdout: readFileSync(join(dir, `${i}.txt`), 'utf8') }));
}

beforeAll(async () => {
  workspace = makeTempDir('baton-progress-');
  const r = await batonIn(workspace, ['log', 'append', '--events', '-', '--batch'], { input: notes(40) });
  expect(r.code, r.stdout + r.stderr).toBe(0);
});

describe('progress on a terminal', () => {
  it('log verify shows its progress line on stderr, then erases it; the result is on stdout', () => {
    const { terminal, stdout } = onTerminal(['--dir', workspace, '--human', 'log', 'verify'], { BATON_PROGRESS_AFTER_MS: '0' });
    // eslint-disable-next-line no-control-regex -- the terminal's erase-line sequence
    expect(terminal).toMatch(/\r\x1b\[2Kverifying the log \(\d+\.\d kB\): hash chain and schemas… \d+\.\d s/);
    expect(terminal.endsWith(ERASE)).toBe(true);
    expect(stdout).toBe('log verified: 40 events, seq 1…40, hash chain unbroken\n');
  });

  it('none with --quiet, none in JSON mode, none before the delay', () => {
    const quiet = onTerminal(['--dir', workspace, '--human', '--quiet', 'log', 'verify'], { BATON_PROGRESS_AFTER_MS: '0' });
    expect(quiet.terminal).toBe('');
    const json = onTerminal(['--dir', workspace, '--json', 'log', 'verify'], { BATON_PROGRESS_AFTER_MS: '0' });
    expect(json.terminal).toBe('');
    expect(jsonLines(json.stdout)[0]).toMatchObject({ type: 'log_verification', ok: true });
    const quick = onTerminal(['--dir', workspace, '--human', 'log', 'verify']);
    expect(quick.terminal).toBe('');
  });

  it('log export counts the events it wrote against the total', () => {
    const file = join(makeTempDir('baton-progress-export-'), 'x.jsonl');
    const { terminal, stdout } = onTerminal(['--dir', workspace, '--human', 'log', 'export', '--out', file], { BATON_PROGRESS_AFTER_MS: '0' });
    expect(terminal).toMatch(/exporting: 0\/40 events \(0%\)… \d+\.\d s/);
    expect(stdout).toContain('exported 40 events');
  });

  it('export, replay, import and a batched append paint frames that advance to 100%, then erase the line; none in JSON mode', () => {
    const out = makeTempDir('baton-progress-all-');
    const file = join(out, 'export.jsonl');
    const fresh = makeTempDir('baton-progress-import-');
    const batch = join(out, 'notes.jsonl');
    writeFileSync(batch, notes(300));
    const human = ['--dir', workspace, '--human'];
    const commands = [
      [...human, 'log', 'export', '--out', file],
      [...human, 'replay', '--view', 'log_stats', '--to', '30'],
      ['--dir', fresh, '--human', 'log', 'import', file],
      ['--dir', makeTempDir('baton-progress-batch-'), '--human', 'log', 'append', '--events', batch, '--batch'],
    ];
    const shown = onTerminalEach(commands, { BATON_PROGRESS_AFTER_MS: '0' });
    const percents = (frames: string[]): number[] => frames.map((f) => Number(/\((\d+)%\)/.exec(f)?.[1] ?? NaN));
    const rising = (values: number[]): boolean => values.every((v, i) => i === 0 || v >= values[i - 1]!);

    const [exported, replayed, imported, appended] = shown.map((s) => s.terminal);
    for (const terminal of shown.map((s) => s.terminal)) expect(terminal!.endsWith(ERASE)).toBe(true);
    expect(framesOf(exported!).every((f) => /^exporting: \d+\/40 events \(\d+%\)… \d+\.\d s$/.test(f))).toBe(true);
    expect(percents(framesOf(exported!))[0]).toBe(0);
    expect(percents(framesOf(exported!)).at(-1)).toBe(100);
    expect(rising(percents(framesOf(exported!)))).toBe(true);
    expect(framesOf(exported!).at(-1)).toMatch(/^exporting: 40\/40 events \(100%\)/);

    expect(framesOf(replayed!).at(-1)).toMatch(/^replaying log_stats: 30\/30 events \(100%\)… \d+\.\d s$/);
    expect(rising(percents(framesOf(replayed!).filter((f) => f.includes('%'))))).toBe(true);

    // The export's bytes, read against its size.
    expect(framesOf(imported!).at(-1)).toMatch(/^importing: (\d+\.\d kB) of \1 \(100%\)… \d+\.\d s$/);
    expect(rising(percents(framesOf(imported!).filter((f) => f.includes('%'))))).toBe(true);
    expect(shown[2]!.stdout).toBe('imported 40 events (head seq 40, chain verified)\n');

    // A batch: read, its lines parsed and checked (each step counted), then the one call that seals
    // and writes them, which shows its time.
    const steps = framesOf(appended!);
    expect(steps[0]).toMatch(/^reading events… \d+\.\d s$/);
    for (const step of ['parsing events', 'checking events']) {
      const frames = steps.filter((f) => f.startsWith(step));
      expect(frames.every((f) => new RegExp(`^${step}: \\d+/300 lines \\(\\d+%\\)… \\d+\\.\\d s$`).test(f))).toBe(true);
      expect(rising(percents(frames))).toBe(true);
    }
    expect(steps.at(-1)).toMatch(/^appending 300 events as one batch… \d+\.\d s$/);
    expect(shown[3]!.stdout).toMatch(/^appended 300 events in 1 batch: seq 1…300, head [0-9a-f]{12}\n$/);

    // JSON mode: the same commands paint nothing.
    const again = join(out, 'again.jsonl');
    const json = onTerminalEach(
      [commands[0]!, commands[1]!, commands[3]!].map((args) => args.map((a) => (a === '--human' ? '--json' : a === file ? again : a))),
      { BATON_PROGRESS_AFTER_MS: '0' },
    );
    expect(json.map((s) => s.terminal)).toEqual(['', '', '']);
    expect(json.map((s) => (JSON.parse(s.stdout) as { type: string }).type)).toEqual(['log_exported', 'log_stats', 'append_summary']);
  });

  it('piped, stderr gets nothing', async () => {
    const r = await batonIn(workspace, ['--human', 'log', 'verify'], { env: { BATON_PROGRESS_AFTER_MS: '0' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });
});

describe('batched appends print a summary', () => {
  it('human: one summary line (count, first and last seq, head hash) instead of a line per event', async () => {
    const dir = makeTempDir('baton-summary-');
    const batch = await batonIn(dir, ['--human', 'log', 'append', '--events', '-', '--batch'], { input: notes(25) });
    expect(batch.code).toBe(0);
    const head = jsonLines((await batonIn(dir, ['log', 'stats'])).stdout)[0] as { head_hash: string };
    expect(batch.stdout).toBe(`appended 25 events in 1 batch: seq 1…25, head ${head.head_hash.slice(0, 12)}\n`);
    const calls = await batonIn(dir, ['--human', 'log', 'append', '--events', '-'], { input: notes(3) });
    expect(calls.stdout).toMatch(/^appended 3 events in 3 calls: seq 26…28, head [0-9a-f]{12}\n$/);
  });

  it('with --each: a line per event in human mode, one appended envelope per call in JSON', async () => {
    const dir = makeTempDir('baton-summary-');
    const each = await batonIn(dir, ['--human', 'log', 'append', '--events', '-', '--batch', '--each'], { input: notes(3) });
    expect(each.stdout.trim().split('\n')).toHaveLength(3);
    expect(each.stdout).toMatch(/^appended #1 note.recorded on note\/p0/);
    const json = await batonIn(dir, ['log', 'append', '--events', '-', '--each'], { input: notes(2) });
    expect(jsonLines(json.stdout).map((e) => AppendedEnvelope.parse(e).events[0]!.seq)).toEqual([4, 5]);
  });
});
