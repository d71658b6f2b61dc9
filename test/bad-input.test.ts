import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batonIn, errorEnvelopeOf, inParallel, runBaton, type CliResult, type RunOptions } from './helpers/cli.js';
import { hashTree, makeTempDir, removeTempDirs } from './helpers/workspace.js';

/**
 * Bad input at the boundary: exit 2, an INVALID_INPUT error envelope on stdout whose message names
 * the field, and not one byte changed under .baton/ (every file hashed before and after). In human
 * mode the same failure is one line on stderr and nothing on stdout.
 */
afterAll(() => removeTempDirs());

let seeded = '';

beforeAll(async () => {
  seeded = makeTempDir('baton-bad-input-');
  expect((await batonIn(seeded, ['init'])).code).toBe(0);
  for (const text of ['one', 'two', 'three']) {
    expect((await batonIn(seeded, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/a', '--data', JSON.stringify({ text })])).code).toBe(0);
  }
});

const append = (data: string, ...rest: string[]): string[] => ['log', 'append', '--type', 'note.recorded', '--stream', 'note/a', '--data', data, ...rest];
const line = (value: unknown): string => JSON.stringify(value);
const goodLine = (text: string): string => line({ type: 'note.recorded', stream: 'note/a', data: { text } });

interface BadCase {
  name: string;
  args: string[];
  /** Each must appear in the message: the field (flag, variable, payload path) and what is wrong. */
  names: (string | RegExp)[];
  env?: Record<string, string>;
  input?: string;
  /** Not `--dir WORKSPACE` (the case supplies its own). */
  noDir?: boolean;
}

const CASES: BadCase[] = [
  {
    name: 'unknown event type',
    args: ['log', 'append', '--type', 'note.unknown', '--stream', 'note/a', '--data', '{"text":"x"}'],
    names: ['type', 'note.unknown'],
  },
  { name: 'malformed event type', args: ['log', 'append', '--type', 'Note', '--stream', 'note/a', '--data', '{"text":"x"}'], names: ['type'] },
  { name: 'invalid JSON in --data', args: append('{"text":'), names: ['--data', 'not valid JSON'] },
  {
    name: 'a store-internal type (log.recovered) cannot be forged by hand',
    args: [
      'log',
      'append',
      '--type',
      'log.recovered',
      '--stream',
      'log/recovery',
      '--data',
      JSON.stringify({ reason: 'torn_tail', segment: '000000000001.jsonl', offset: 0, bytes: 1, quarantined_to: 'quarantine/x', lines_dropped: 0 }),
    ],
    names: ['--type', 'log.recovered'],
  },
  { name: '--data not an object', args: append('["text"]'), names: ['--data', 'JSON object'] },
  { name: 'empty text', args: append('{"text":""}'), names: ['data.text', 'empty'] },
  { name: 'text over 4,000 characters', args: append(JSON.stringify({ text: 'x'.repeat(4001) })), names: ['data.text', '4,000'] },
  { name: 'extra key in data', args: append('{"text":"x","extra":1}'), names: ['data', 'extra'] },
  { name: 'missing text', args: append('{}'), names: ['data.text'] },
  { name: 'bad stream name', args: ['log', 'append', '--type', 'note.recorded', '--stream', 'note/../x', '--data', '{"text":"x"}'], names: ['stream'] },
  {
    name: "stream outside the type's category",
    args: ['log', 'append', '--type', 'note.recorded', '--stream', 'wu/WU-1', '--data', '{"text":"x"}'],
    names: ['stream', 'note/'],
  },
  { name: 'missing --data', args: ['log', 'append', '--type', 'note.recorded', '--stream', 'note/a'], names: ['--data', 'required'] },
  { name: 'missing --type', args: ['log', 'append', '--stream', 'note/a', '--data', '{"text":"x"}'], names: ['--type', 'required'] },
  { name: 'missing required --out of log export', args: ['log', 'export'], names: ['--out'] },
  { name: 'unknown flag', args: [...append('{"text":"x"}'), '--bogus'], names: ['--bogus'] },
  { name: 'unknown global flag', args: ['--frobnicate', 'log', 'show'], names: ['--frobnicate'] },
  { name: 'non-numeric --expected-version', args: append('{"text":"x"}', '--expected-version', 'abc'), names: ['--expected-version', 'abc'] },
  { name: 'fractional --expected-version', args: append('{"text":"x"}', '--expected-version', '1.5'), names: ['--expected-version'] },
  { name: 'bad idempotency key', args: append('{"text":"x"}', '--idempotency-key', 'has space'), names: [/idempotency[-_]key/] },
  { name: '--from 0', args: ['log', 'show', '--from', '0'], names: ['--from'] },
  { name: 'non-numeric --from', args: ['log', 'show', '--from', 'ten'], names: ['--from', 'ten'] },
  { name: 'non-numeric --to', args: ['log', 'show', '--to', 'x'], names: ['--to'] },
  { name: 'non-numeric tail -n', args: ['log', 'tail', '-n', 'many'], names: ['--lines'] },
  { name: 'bad BATON_NOW', args: append('{"text":"x"}'), env: { BATON_NOW: 'yesterday' }, names: ['BATON_NOW'] },
  { name: 'impossible BATON_NOW date', args: ['log', 'show'], env: { BATON_NOW: '2026-13-45T99:00:00Z' }, names: ['BATON_NOW'] },
  { name: 'bad --session', args: ['--session', 'has space', ...append('{"text":"x"}')], names: ['--session'] },
  { name: 'bad BATON_SESSION', args: append('{"text":"x"}'), env: { BATON_SESSION: '../escape' }, names: ['BATON_SESSION'] },
  { name: 'invalid JSON on an --events line', args: ['log', 'append', '--events', '-'], input: `${goodLine('ok')}\n{"type":\n`, names: ['--events', 'line 2'] },
  {
    name: '--events line without a type',
    args: ['log', 'append', '--events', '-'],
    input: `${line({ stream: 'note/a', data: { text: 'x' } })}\n`,
    names: ['--events line 1', 'type'],
  },
  {
    name: '--events line with an unknown key',
    args: ['log', 'append', '--events', '-'],
    input: `${line({ type: 'note.recorded', stream: 'note/a', data: { text: 'x' }, colour: 'red' })}\n`,
    names: ['--events line 1', 'colour'],
  },
  {
    name: 'schema-invalid data on the third --events line (the first two are valid)',
    args: ['log', 'append', '--events', '-'],
    input: `${goodLine('first')}\n${goodLine('second')}\n${line({ type: 'note.recorded', stream: 'note/a', data: { text: '' } })}\n`,
    names: ['line 3', 'data.text'],
  },
  {
    name: 'unknown type on the second --events line',
    args: ['log', 'append', '--events', '-'],
    input: `${goodLine('first')}\n${line({ type: 'note.nope', stream: 'note/a', data: { text: 'x' } })}\n`,
    names: ['line 2', 'type'],
  },
  {
    name: 'bad stream on the second line of an --events --batch',
    args: ['log', 'append', '--events', '-', '--batch'],
    input: `${goodLine('first')}\n${line({ type: 'note.recorded', stream: 'NOTE', data: { text: 'x' } })}\n`,
    names: ['line 2', 'stream'],
  },
  { name: 'empty --events input', args: ['log', 'append', '--events', '-'], input: '\n\n', names: ['--events'] },
  { name: '--batch without --events', args: append('{"text":"x"}', '--batch'), names: ['--batch'] },
  {
    name: '--events combined with --type',
    args: ['log', 'append', '--events', '-', '--type', 'note.recorded'],
    input: `${goodLine('x')}\n`,
    names: ['--type'],
  },
  { name: 'import of a missing file', args: ['log', 'import', '/nonexistent/baton-export.jsonl'], names: ['file', '/nonexistent/baton-export.jsonl'] },
  { name: 'empty --dir', args: ['--dir', '', 'log', 'show'], names: ['--dir'], noDir: true },
];

function includesName(message: string, name: string | RegExp): boolean {
  return typeof name === 'string' ? message.includes(name) : name.test(message);
}

async function runCase(c: BadCase, human: boolean): Promise<{ result: CliResult; before: Record<string, string>; after: Record<string, string> }> {
  const workspace = makeTempDir('baton-bad-case-');
  cpSync(join(seeded, '.baton'), join(workspace, '.baton'), { recursive: true });
  const before = hashTree(join(workspace, '.baton'));
  const options: RunOptions = { ...(c.env ? { env: c.env } : {}), ...(c.input !== undefined ? { input: c.input } : {}), cwd: workspace };
  const args = human ? ['--human', ...c.args] : c.args;
  const result = c.noDir ? await runBaton(args, options) : await batonIn(workspace, args, options);
  return { result, before, after: hashTree(join(workspace, '.baton')) };
}

type CaseRun = Awaited<ReturnType<typeof runCase>>;

/**
 * Runs every case (4 at a time) and checks it with `check`; returns one line per case that failed
 * its check (none when all pass), so a single run lists every broken case with its output.
 */
async function problemsOf(cases: readonly BadCase[], human: boolean, check: (c: BadCase, run: CaseRun) => void): Promise<string[]> {
  const problems = await inParallel(
    4,
    cases.map((c) => async () => {
      const run = await runCase(c, human);
      try {
        check(c, run);
        return undefined;
      } catch (error) {
        return `${c.name}: ${(error as Error).message.split('\n')[0]}\n  stdout: ${run.result.stdout.trim()}\n  stderr: ${run.result.stderr.trim()}`;
      }
    }),
  );
  return problems.filter((p) => p !== undefined);
}

describe('bad input is refused at the boundary', () => {
  it(`JSON mode: exit 2, INVALID_INPUT naming the field, nothing changed under .baton/ (${CASES.length} cases)`, async () => {
    const problems = await problemsOf(CASES, false, (c, { result, before, after }) => {
      expect(result.code).toBe(2);
      const error = errorEnvelopeOf(result);
      expect(error.code).toBe('INVALID_INPUT');
      for (const name of c.names) expect(includesName(error.message, name), `message "${error.message}" names ${String(name)}`).toBe(true);
      expect(result.stdout.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toBe('');
      expect(after).toEqual(before);
    });
    expect(problems).toEqual([]);
  }, 120_000);

  // Every other case, so each source of errors (commander, flag parsers, the environment, payload
  // schemas, --events lines, files) is covered once more in human mode.
  const HUMAN_CASES = CASES.filter((_, i) => i % 2 === 0);

  it(`human mode (--human): one line on stderr naming the field, nothing on stdout, exit 2 (${HUMAN_CASES.length} cases)`, async () => {
    const problems = await problemsOf(HUMAN_CASES, true, (c, { result, before, after }) => {
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^baton: INVALID_INPUT: [^\n]+\n$/);
      for (const name of c.names) expect(includesName(result.stderr, name), `stderr names ${String(name)}`).toBe(true);
      expect(after).toEqual(before);
    });
    expect(problems).toEqual([]);
  }, 120_000);

  it('an --events file whose last line is invalid appends none of its lines', async () => {
    const workspace = makeTempDir('baton-bad-events-');
    expect((await batonIn(workspace, ['init'])).code).toBe(0);
    const file = join(workspace, 'events.jsonl');
    writeFileSync(file, `${goodLine('kept?')}\n${goodLine('kept?')}\n${line({ type: 'note.recorded', stream: 'note/a', data: { text: 'y'.repeat(4001) } })}\n`);
    const result = await batonIn(workspace, ['log', 'append', '--events', file]);
    expect(result.code).toBe(2);
    expect(errorEnvelopeOf(result).message).toContain('line 3');
    // Not even an `appended` envelope for the valid lines: the error envelope is the only output.
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const show = await batonIn(workspace, ['log', 'show']);
    expect(show.stdout).toBe('');
  });
});
