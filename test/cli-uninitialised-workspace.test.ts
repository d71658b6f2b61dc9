import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { READ_COMMANDS } from '../src/cli/uninitialised-reads.js';
import { batonIn, errorEnvelopeOf, jsonLines, runBaton } from './helpers/cli.js';
import { makeTempDir, removeTempDirs } from './helpers/workspace.js';

/**
 * First run: a read in a folder never initialised exits 2 (`NO_WORKSPACE`) with the `baton init`
 * hint instead of an empty success, and creates nothing; writes still create the workspace; `status`
 * keeps tasks.md's no-store answer (T25); `init` offers the .gitignore entry and says what is next.
 */
afterAll(removeTempDirs);

const T0 = '2026-11-22T09:00:00.000Z';

/** Each read command with the arguments it needs to get as far as the workspace. */
const READS: Record<string, readonly string[]> = {
  'log show': ['log', 'show'],
  'log tail': ['log', 'tail'],
  'log verify': ['log', 'verify'],
  'log anchor': ['log', 'anchor'],
  'log stats': ['log', 'stats'],
  'log export': ['log', 'export', '--out', 'x.jsonl'],
  replay: ['replay', '--view', 'log_stats', '--to', '1'],
  audit: ['audit'],
  'audit why': ['audit', 'why', 'WU-1'],
  'mem roster': ['mem', 'roster'],
  'mem inbox': ['mem', 'inbox'],
  'mem converged': ['mem', 'converged', '--thread', 'thread-1'],
  'mem watch': ['mem', 'watch', '--session', 'session_0123456789abcdef01234567'],
  'hooks drain': ['hooks', 'drain', '--session', 'session_0123456789abcdef01234567'],
  'wu explain': ['wu', 'explain', 'WU-1'],
  'flow status': ['flow', 'status'],
  'orchestrate status': ['orchestrate', 'status', 'INIT-1'],
  serve: ['serve', '--port', '0'],
};

describe('reads in a folder with no .baton/', () => {
  it('every read command is covered here', () => {
    expect(Object.keys(READS).sort()).toEqual([...READ_COMMANDS].sort());
  });

  it.each(Object.entries(READS))('%s exits 2 NO_WORKSPACE with the init hint, and writes nothing', async (name, args) => {
    const dir = makeTempDir('baton-uninit-');
    const r = await batonIn(dir, ['--json', ...args], { cwd: dir, env: { BATON_NOW: T0 } });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const error = errorEnvelopeOf(r);
    expect(error).toMatchObject({ code: 'NO_WORKSPACE', generated_at: T0, details: { dir } });
    expect(error.message).toContain('baton init');
    expect(error.message).toContain(`baton ${name}`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('in human mode it is one line on stderr naming baton init', async () => {
    const dir = makeTempDir('baton-uninit-');
    const r = await batonIn(dir, ['--human', 'log', 'verify']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^baton: NO_WORKSPACE: no Baton workspace in .*run `baton init` there first.*\n$/);
  });

  it('a write creates the workspace, as init would; then the same read succeeds', async () => {
    const dir = makeTempDir('baton-uninit-');
    const append = await batonIn(dir, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/a', '--data', '{"text":"x"}']);
    expect(append.code, append.stdout).toBe(0);
    const verify = await batonIn(dir, ['log', 'verify']);
    expect(verify.code).toBe(0);
    expect(jsonLines(verify.stdout)[0]).toMatchObject({ type: 'log_verification', ok: true, head_seq: 1 });
  });

  it('status keeps its no-store answer (tasks.md T25): exit 0, storeExists false, nothing created', async () => {
    const dir = makeTempDir('baton-uninit-');
    const r = await batonIn(dir, ['status']);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout)[0]).toMatchObject({ storeExists: false });
    // A person reading it is told it is no workspace, and how to make one.
    const human = await batonIn(dir, ['--human', 'status']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('this folder is no Baton workspace; `baton init` makes it one');
    expect(existsSync(join(dir, '.baton'))).toBe(false);
  });
});

describe('init and .gitignore', () => {
  it('without --gitignore: says .baton/ is not ignored, leaves .gitignore alone, lists next steps', async () => {
    const dir = makeTempDir('baton-init-gi-');
    writeFileSync(join(dir, '.gitignore'), 'node_modules\n');
    const r = await batonIn(dir, ['init']);
    expect(r.code).toBe(0);
    const envelope = jsonLines(r.stdout)[0] as { gitignore: string; next_steps: { command: string }[] };
    expect(envelope.gitignore).toBe('not_ignored');
    expect(envelope.next_steps.map((s) => s.command)).toContain('baton status');
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('node_modules\n');
    const human = await batonIn(dir, ['--human', 'init']);
    expect(human.stdout).toContain('baton init --gitignore adds it');
    expect(human.stdout).toContain('Next:\n  baton session start');
  });

  it('--gitignore adds the entry once (a file without a final newline keeps its last line), then reports it present', async () => {
    const dir = makeTempDir('baton-init-gi-');
    writeFileSync(join(dir, '.gitignore'), 'dist');
    const first = await batonIn(dir, ['init', '--gitignore']);
    expect(first.code).toBe(0);
    expect(jsonLines(first.stdout)[0]).toMatchObject({ created: true, gitignore: 'added' });
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('dist\n.baton/\n');
    const second = await batonIn(dir, ['init', '--gitignore']);
    expect(jsonLines(second.stdout)[0]).toMatchObject({ created: false, gitignore: 'already_ignored' });
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('dist\n.baton/\n');
  });

  it('--gitignore creates a missing .gitignore', async () => {
    const dir = makeTempDir('baton-init-gi-');
    const r = await batonIn(dir, ['--human', 'init', '--gitignore']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('added .baton/ to .gitignore');
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('.baton/\n');
  });
});

describe('one error envelope shape', () => {
  it('a commander-level error carries generated_at and @timestamp (BATON_NOW when given)', async () => {
    const dir = makeTempDir('baton-uninit-');
    const r = await runBaton(['--json', '--dir', dir, 'log', 'show', '--bogus'], { env: { BATON_NOW: T0 } });
    expect(r.code).toBe(2);
    expect(errorEnvelopeOf(r)).toMatchObject({ code: 'INVALID_INPUT', generated_at: T0, '@timestamp': T0 });
    expect(r.stdout.startsWith('{"v":1,"type":"error","generated_at":')).toBe(true);
  });

  it('an error before the clock is read (a bad BATON_NOW) still carries generated_at', async () => {
    const dir = makeTempDir('baton-uninit-');
    const r = await batonIn(dir, ['--json', 'log', 'stats'], { env: { BATON_NOW: 'yesterday' } });
    expect(r.code).toBe(2);
    const error = errorEnvelopeOf(r);
    expect(error.message).toContain('BATON_NOW');
    expect(Number.isNaN(Date.parse(error.generated_at ?? ''))).toBe(false);
  });
});
