import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batonIn, errorEnvelopeOf, jsonLines, type CliResult } from './helpers/cli.js';
import { makeTempDir, removeTempDirs } from './helpers/workspace.js';

/**
 * Errors: a file-system error on a path the user gives is exit 2 naming the flag and the path
 * (in the words of reading or of writing); every validation message — commander's refusals and
 * zod's failures alike — is Baton's own words naming the flag, never a validator's internals.
 */
afterAll(removeTempDirs);

const T0 = '2026-11-22T09:00:00.000Z';
const ZOD_OR_COMMANDER = /Invalid input|Invalid option|Too small|Too big|received undefined|expected string|error: |not specified|argument missing/;
let ws = '';

function refused(r: CliResult, field: string, words: string): void {
  expect(r.code, r.stdout + r.stderr).toBe(2);
  const error = errorEnvelopeOf(r);
  expect(error).toMatchObject({ code: 'INVALID_INPUT', generated_at: T0, '@timestamp': T0 });
  expect(error.message).toBe(words);
  expect(error.message.startsWith(`${field}: `)).toBe(true);
  expect(error.message).not.toMatch(ZOD_OR_COMMANDER);
}

beforeAll(async () => {
  ws = makeTempDir('baton-errors-');
  expect((await batonIn(ws, ['init'])).code).toBe(0);
});

const run = (args: string[]) => batonIn(ws, ['--json', ...args], { env: { BATON_NOW: T0 } });

describe('paths the user gives', () => {
  it('--events: a missing file is "no such file", a folder is a folder; nothing appended', async () => {
    refused(await run(['log', 'append', '--events', 'missing.jsonl']), '--events', '--events: "missing.jsonl": no such file');
    const folder = join(ws, 'a-folder');
    mkdirSync(folder);
    refused(await run(['log', 'append', '--events', folder]), '--events', `--events: "${folder}": is a folder, not a file`);
    expect(readdirSync(join(ws, '.baton', 'log'))).toEqual([]);
  });

  it('log import: a missing file is named with the argument', async () => {
    const target = makeTempDir('baton-errors-import-');
    const r = await batonIn(target, ['--json', 'log', 'import', 'missing.jsonl'], { env: { BATON_NOW: T0 } });
    expect(r.code).toBe(2);
    expect(errorEnvelopeOf(r).message).toBe('file: no such file "missing.jsonl"');
  });

  it('log export --out where nothing may be written: exit 2 "is not writable", no file left', async () => {
    // Root writes through any mode bits, not into sysfs; others are refused by a read-only folder.
    const parent = process.getuid?.() === 0 ? '/sys' : makeTempDir('baton-errors-ro-');
    if (parent !== '/sys') (await import('node:fs')).chmodSync(parent, 0o555);
    const out = join(parent, 'baton-export.jsonl');
    refused(await run(['log', 'export', '--out', out]), '--out', `--out: "${out}": is not writable (permission denied)`);
  });

  it('init --gitignore when .gitignore is a folder: exit 2 naming --gitignore and the path', async () => {
    const dir = makeTempDir('baton-errors-gi-');
    mkdirSync(join(dir, '.gitignore'));
    const r = await batonIn(dir, ['--json', 'init', '--gitignore'], { env: { BATON_NOW: T0 } });
    refused(r, '--gitignore', `--gitignore: "${join(dir, '.gitignore')}": is a folder, not a file`);
  });
});

describe("validation in Baton's words", () => {
  it('commander refusals name the flag or argument', async () => {
    refused(await run(['replay', '--to', '1']), '--view', '--view: is required (--view <name>)');
    refused(await run(['log', 'tail', '-n']), '--lines', '--lines: needs a value (-n, --lines <n>)');
    refused(await run(['log', 'show', '--bogus']), '--bogus', '--bogus: is not an option of this command; --help lists them');
    refused(await run(['mem', 'signal']), 'message', 'message: is required');
  });

  it('an unknown command keeps its suggestion on one line', async () => {
    const r = await run(['log', 'shw']);
    expect(r.code).toBe(2);
    expect(errorEnvelopeOf(r).message).toBe("unknown command 'shw' (Did you mean show?)");
  });

  it("an unknown subcommand with none close lists its group's commands; so does an unknown top-level command (exit 2)", async () => {
    const wu = await run(['wu', 'frobnicate']);
    expect(wu.code).toBe(2);
    const commands = errorEnvelopeOf(wu).details!['commands'] as string[];
    expect(commands).toEqual(
      expect.arrayContaining(['create', 'import', 'claim', 'checkpoint', 'return', 'block', 'release', 'done', 'list', 'show', 'explain']),
    );
    expect(commands).not.toContain('help');
    expect(errorEnvelopeOf(wu)).toMatchObject({
      code: 'INVALID_INPUT',
      message: `unknown command 'frobnicate'; the commands of baton wu are: ${commands.join(', ')} (baton wu --help says what each does)`,
      details: { command: 'frobnicate', group: 'baton wu' },
    });
    const closest = await run(['wu', 'claimm']);
    expect(closest.code).toBe(2);
    expect(errorEnvelopeOf(closest)).toMatchObject({ message: "unknown command 'claimm' (Did you mean claim?)", details: { did_you_mean: ['claim'] } });

    const top = await run(['frobnicate']);
    expect(top.code).toBe(2);
    const listed = errorEnvelopeOf(top).details!['commands'] as string[];
    for (const name of ['init', 'log', 'wu', 'status', 'serve', 'version']) expect(listed).toContain(name);
    expect(errorEnvelopeOf(top).message).toMatch(
      /^unknown command 'frobnicate'; the commands of baton are: init, log, .* \(baton --help says what each does\)$/,
    );

    // Human mode: the same, one line on stderr.
    const human = await batonIn(ws, ['--human', 'mem', 'frob']);
    expect(human.code).toBe(2);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(
      /^baton: INVALID_INPUT: unknown command 'frob'; the commands of baton mem are: roster, signal, inbox, .*converged.* \(baton mem --help says what each does\)\n$/,
    );
  });

  it('wu checkpoint without --note: "--note: is required", nothing appended', async () => {
    const dir = makeTempDir('baton-errors-wu-');
    const env = { BATON_NOW: T0 };
    expect((await batonIn(dir, ['initiative', 'create', 'INIT-1', '--title', 'T', '--lanes', 'Core'], { env })).code).toBe(0);
    expect((await batonIn(dir, ['wu', 'create', 'WU-1', '--initiative', 'INIT-1', '--lane', 'Core', '--title', 'x'], { env })).code).toBe(0);
    const started = jsonLines((await batonIn(dir, ['session', 'start', '--client', 'codex'], { env })).stdout)[0] as { session: { id: string } };
    const session = started.session.id;
    expect((await batonIn(dir, ['--session', session, 'wu', 'claim', 'WU-1'], { env })).code).toBe(0);
    const r = await batonIn(dir, ['--json', '--session', session, 'wu', 'checkpoint', 'WU-1', '--progress', '50%'], { env });
    expect(r.code).toBe(2);
    const error = errorEnvelopeOf(r);
    expect(error.message).toBe('--note: is required');
    expect(error.message).not.toMatch(ZOD_OR_COMMANDER);
    const stats = jsonLines((await batonIn(dir, ['log', 'stats'])).stdout)[0] as { by_type: Record<string, number> };
    expect(stats.by_type['wu.checkpointed']).toBeUndefined();
  });

  it('a bad payload field is named with the rule in words', async () => {
    const r = await run(['log', 'append', '--type', 'note.recorded', '--stream', 'note/a', '--data', '{"text":5}']);
    expect(r.code).toBe(2);
    const error = errorEnvelopeOf(r);
    expect(error.message).toContain('must be a string (got a number)');
    expect(error.message).not.toMatch(ZOD_OR_COMMANDER);
  });
});
