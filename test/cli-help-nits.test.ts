import { afterAll, describe, expect, it } from 'vitest';
import { PROJECTIONS } from '../projections/index.js';
import { REPLAY_VIEWS } from '../src/cli/groups/replay.js';
import { batonIn, runBaton } from './helpers/cli.js';
import { makeTempDir, removeTempDirs } from './helpers/workspace.js';

/** Nits: help texts that promised a list or repeated a default, `baton version`, readable --human output. */
afterAll(removeTempDirs);

const T0 = '2026-11-22T09:00:00.000Z';

describe('help texts', () => {
  it('replay --help lists every view it takes', async () => {
    expect(Object.keys(REPLAY_VIEWS).sort()).toEqual(Object.keys(PROJECTIONS).sort());
    const r = await runBaton(['replay', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(see Views below)');
    const views = r.stdout.slice(r.stdout.indexOf('\nViews:\n'));
    for (const name of Object.keys(PROJECTIONS)) expect(views).toMatch(new RegExp(`\\n  ${name} +\\S`));
  });

  it('log tail --help shows the default once', async () => {
    const r = await runBaton(['log', 'tail', '--help']);
    const line = r.stdout.split('\n').find((l) => l.includes('--lines'))!;
    expect(line.match(/default/g)).toHaveLength(1);
  });

  it('every deep-dive compile option has a description', async () => {
    const r = await runBaton(['deep-dive', 'compile', '--help']);
    const options = r.stdout.split('\n').filter((l) => /^\s+--[a-z-]+ <text>/.test(l));
    expect(options).toHaveLength(9);
    for (const line of options) expect(line).toMatch(/<text>\s+\S/);
  });

  it('baton version prints the version, as --version does', async () => {
    const version = await runBaton(['--version']);
    const word = await runBaton(['version']);
    expect(word.code).toBe(0);
    expect(word.stdout).toBe(version.stdout);
    expect(word.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('--human output people read', () => {
  it('log tail --human prints one readable line per event; piped it stays the stored JSON', async () => {
    const dir = makeTempDir('baton-human-');
    const env = { BATON_NOW: T0 };
    await batonIn(dir, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"hello"}'], { env });
    const human = await batonIn(dir, ['--human', 'log', 'tail']);
    expect(human.stdout).toBe(`#1 ${T0} note.recorded note/ops by system  {"text":"hello"}\n`);
    const piped = await batonIn(dir, ['log', 'tail']);
    expect(JSON.parse(piped.stdout)).toMatchObject({ seq: 1, type: 'note.recorded' });
  });

  it('replay --human prints key: value lines, not JSON', async () => {
    const dir = makeTempDir('baton-human-');
    const env = { BATON_NOW: T0 };
    await batonIn(dir, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"hello"}'], { env });
    const r = await batonIn(dir, ['--human', 'replay', '--view', 'log_stats', '--to', '1'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[{}"]/);
    expect(r.stdout).toContain('type: log_stats\n');
    expect(r.stdout).toContain('head_seq: 1\n');
    expect(r.stdout).toContain('by_type:\n  note.recorded: 1\n');
  });
});

describe('replay views that cannot be computed', () => {
  it('an unknown WU is exit 2 UNKNOWN_ID with the error envelope, not a success printing an error-typed view', async () => {
    const dir = makeTempDir('baton-replay-refusal-');
    const env = { BATON_NOW: T0 };
    await batonIn(dir, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"hello"}'], { env });
    const r = await batonIn(dir, ['--json', 'replay', '--view', 'wu_explain', '--to', '1', 'WU-404'], { env });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'error', code: 'UNKNOWN_ID', message: 'WU WU-404 not found', '@timestamp': T0 });
  });
});
