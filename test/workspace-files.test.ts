import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { WorkspaceEnvelope } from '../src/app/envelopes/foundation.js';
import { batonIn, jsonLines } from './helpers/cli.js';
import { makeTempDir, modesUnder, removeTempDirs, segmentPaths } from './helpers/workspace.js';

/**
 * The workspace state folder: `.baton/` and every folder under it 0700, every file 0600, whatever
 * the umask of the process that made them; `init` idempotent; config.yaml written once.
 */
afterAll(() => removeTempDirs());

const note = (i: number): string => JSON.stringify({ type: 'note.recorded', stream: `note/n${i % 4}`, data: { text: `note ${i}` } });

/** Exercise every writer of files under .baton/: init, appends (a new segment), the index cache, export/import, recovery. */
async function populate(workspace: string, umask: string | undefined): Promise<void> {
  const opts = umask !== undefined ? { umask } : {};
  const run = async (args: string[], input?: string): Promise<void> => {
    const result = await batonIn(workspace, args, { ...opts, ...(input !== undefined ? { input } : {}) });
    expect(result.code, `${args.join(' ')}: ${result.stdout}${result.stderr}`).toBe(0);
  };
  await run(['init']);
  await run(['log', 'append', '--type', 'note.recorded', '--stream', 'note/a', '--data', '{"text":"one"}']);
  // A keyed batch of 1,000 loads the store index and folds enough to write its cache on close.
  await run(['log', 'append', '--events', '-', '--batch', '--idempotency-key', 'bulk'], Array.from({ length: 1000 }, (_, i) => note(i)).join('\n') + '\n');
  // A torn tail, then an append: recovery writes a quarantine file.
  appendFileSync(segmentPaths(workspace).at(-1)!, '{"v":1,"seq":1002,"id":"torn');
  await run(['log', 'append', '--type', 'note.recorded', '--stream', 'note/a', '--data', '{"text":"after recovery"}', '--idempotency-key', 'k-after']);
  await run(['log', 'verify']);
}

function expectPrivate(workspace: string): void {
  const root = join(workspace, '.baton');
  expect(modesUnder(workspace).find((e) => e.path === '.baton')).toMatchObject({ isDirectory: true, mode: 0o700 });
  const entries = modesUnder(root);
  const wrong = entries.filter((e) => e.mode !== (e.isDirectory ? 0o700 : 0o600)).map((e) => `${e.path} ${e.mode.toString(8)}`);
  expect(wrong).toEqual([]);
  // What was checked: the folders of the layout and a file of each kind.
  const paths = entries.map((e) => e.path);
  for (const expected of ['log', 'cache', 'quarantine', 'config.yaml', 'log/000000000001.jsonl', 'cache/store-index.json']) expect(paths).toContain(expected);
  expect(paths.some((p) => /^quarantine\/.+\.torn$/.test(p))).toBe(true);
}

describe('workspace files are private', () => {
  for (const umask of [undefined, '000', '077']) {
    it(`every folder under .baton is 0700 and every file 0600 after init, appends, the index cache and a recovery (umask ${umask ?? 'inherited'})`, async () => {
      const workspace = makeTempDir('baton-modes-');
      await populate(workspace, umask);
      expectPrivate(workspace);
    });
  }

  it('a fresh workspace imported from an export is private too (umask 000)', async () => {
    const source = makeTempDir('baton-modes-src-');
    await populate(source, undefined);
    const file = join(makeTempDir('baton-modes-export-'), 'export.jsonl');
    expect((await batonIn(source, ['log', 'export', '--out', file])).code).toBe(0);
    const target = makeTempDir('baton-modes-dst-');
    const imported = await batonIn(target, ['log', 'import', file], { umask: '000' });
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    const root = join(target, '.baton');
    const wrong = modesUnder(root).filter((e) => e.mode !== (e.isDirectory ? 0o700 : 0o600));
    expect(wrong).toEqual([]);
    expect(modesUnder(target).find((e) => e.path === '.baton')?.mode).toBe(0o700);
    expect(modesUnder(root).map((e) => e.path)).toContain('log/000000000001.jsonl');
  });
});

describe('baton init', () => {
  it('is idempotent: created true, then false, and the config and log are left alone the second time', async () => {
    const workspace = makeTempDir('baton-init-');
    const first = await batonIn(workspace, ['init'], { env: { BATON_NOW: '2026-05-01T08:00:00Z' } });
    expect(first.code).toBe(0);
    expect(WorkspaceEnvelope.parse(jsonLines(first.stdout)[0])).toEqual({
      v: 1,
      type: 'workspace',
      generated_at: '2026-05-01T08:00:00.000Z',
      dir: workspace,
      created: true,
      gitignore: 'not_ignored',
      next_steps: expect.arrayContaining([{ command: 'baton status', why: expect.any(String) }]),
    });
    const config = join(workspace, '.baton', 'config.yaml');
    expect(existsSync(config)).toBe(true);
    expect(parseYaml(readFileSync(config, 'utf8'))).toEqual({ store: { kind: 'jsonl' } });
    for (const dir of ['log', 'cache', 'quarantine']) expect(existsSync(join(workspace, '.baton', dir))).toBe(true);

    expect((await batonIn(workspace, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/a', '--data', '{"text":"x"}'])).code).toBe(0);
    appendFileSync(config, '# a comment the operator added\n');
    const configBefore = readFileSync(config);
    const segmentBefore = readFileSync(segmentPaths(workspace)[0]!);

    const second = await batonIn(workspace, ['init']);
    expect(second.code).toBe(0);
    expect(jsonLines(second.stdout)[0]).toMatchObject({ type: 'workspace', dir: workspace, created: false });
    expect(readFileSync(config).equals(configBefore)).toBe(true);
    expect(readFileSync(segmentPaths(workspace)[0]!).equals(segmentBefore)).toBe(true);
  });

  it('in human mode says whether it initialised or found the workspace', async () => {
    const workspace = makeTempDir('baton-init-human-');
    const first = await batonIn(workspace, ['--human', 'init']);
    // The first line says which; the .gitignore advice and the next steps follow.
    expect(first.stdout.split('\n')[0]).toBe(`initialised Baton workspace in ${workspace}/.baton`);
    const second = await batonIn(workspace, ['--human', 'init']);
    expect(second.stdout.split('\n')[0]).toBe(`Baton workspace already initialised in ${workspace}/.baton`);
  });
});
