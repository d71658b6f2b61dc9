import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv, jsonLines } from './helpers/cli.js';
import { makeTempDir, removeTempDirs } from './helpers/workspace.js';

/**
 * The package as a user installs it: `npm pack` of the built project, the tarball installed
 * into a fresh prefix from the npm registry, and the installed `baton` run from there. `npm test`
 * builds first, so the pack skips its own `prepack` build.
 */
const exec = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
afterAll(removeTempDirs);

/** What the tarball may hold: the CLI bundle, the library and its types, and the documents. */
const ALLOWED = [
  /^dist\/bin\/[^/]+\.js$/,
  /^dist\/bin\/validators\.codecache$/,
  /^dist\/(src|events|machines|deciders|projections)\/.+\.(js|d\.ts)$/,
  /^(package\.json|README\.md|ARCHITECTURE\.md|LICENSE)$/,
  /^schemas\/.+\.json$/,
];

describe('the packed package', () => {
  let tarball: string;
  let files: string[];

  it('holds only what runs: no tests, no benches, no sources or maps; a LICENSE and the baton bin', async () => {
    const out = makeTempDir('baton-pack-');
    const { stdout } = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', out], {
      cwd: root,
      env: childEnv(),
      maxBuffer: 64 * 1024 * 1024,
    });
    const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[]; size: number; unpackedSize: number }[];
    tarball = join(out, packed!.filename);
    files = packed!.files.map((f) => f.path);
    const stray = files.filter((f) => !ALLOWED.some((pattern) => pattern.test(f)));
    expect(stray).toEqual([]);
    expect(files).toContain('dist/bin/baton.js');
    expect(files).toContain('dist/src/index.js');
    expect(files).toContain('dist/src/index.d.ts');
    expect(files).toContain('LICENSE');
    expect(files).toContain('schemas/index.json');
    expect(files).toContain('schemas/envelopes/error.schema.json');
    expect(files.some((f) => /(^|\/)(test|bench)\//.test(f) || f.endsWith('.map') || (f.endsWith('.ts') && !f.endsWith('.d.ts')))).toBe(false);
    // A budget, so that nothing large creeps in unnoticed.
    expect(packed!.unpackedSize).toBeLessThan(12 * 1024 * 1024);
  }, 120_000);

  it('installs into a fresh prefix and its baton runs: --version, init, a claim, status', async () => {
    expect(tarball).toBeDefined();
    const prefix = makeTempDir('baton-prefix-');
    await exec('npm', ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', '--ignore-scripts', tarball], {
      env: childEnv(),
      maxBuffer: 64 * 1024 * 1024,
    });
    const bin = join(prefix, 'bin', 'baton');
    const ws = makeTempDir('baton-installed-');
    const env = childEnv({ BATON_NOW: '2026-04-17T10:00:00Z' });
    const run = async (args: string[]): Promise<unknown> => {
      const { stdout } = await exec(bin, ['--dir', ws, '--json', ...args], { env });
      return jsonLines(stdout).at(-1);
    };
    const version = await exec(bin, ['--version'], { env });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(await run(['init'])).toMatchObject({ type: 'workspace', created: true });
    const session = ((await run(['session', 'start'])) as { session: { id: string } }).session.id;
    await run(['initiative', 'create', 'INIT-1', '--title', 'One', '--lanes', 'L1']);
    await run(['wu', 'create', 'WU-1', '--initiative', 'INIT-1', '--lane', 'L1', '--title', 'First']);
    expect(await run(['--session', session, 'wu', 'claim', 'WU-1'])).toMatchObject({ type: expect.stringMatching(/^wu_/) });
    const status = (await run(['status'])) as { type: string; baton: { initiatives: { initiative: string }[] } };
    expect(status.type).toBe('orchestration_status');
    expect(status.baton.initiatives.map((i) => i.initiative)).toEqual(['INIT-1']);
    // The installed library finds its block hasher (hash-wasm, a runtime dependency): the XXH3-128 reference vector for no bytes.
    const hasher = pathToFileURL(join(prefix, 'lib', 'node_modules', 'baton-state', 'dist', 'src', 'store', 'jsonl', 'block-hasher.js')).href;
    const digest = await exec(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { loadBlockHasher } = await import(${JSON.stringify(hasher)}); console.log((await loadBlockHasher())(new Uint8Array(0)));`,
      ],
      { env, cwd: ws },
    );
    expect(digest.stdout.trim()).toBe('99aa06d3014798d86001c324468d497f');
  }, 240_000);
});
