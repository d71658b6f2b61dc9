import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
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

/** The first line a child prints on stdout (`serve`'s envelope), or its exit. */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}${err}`)));
  });
}

/** Runs a command with `input` on stdin: its exit code and output. */
function execWithInput(
  file: string,
  args: string[],
  input: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** What the tarball may hold: the CLI bundle, the library and its types, and the documents. */
const ALLOWED = [
  /^dist\/bin\/[^/]+\.js$/,
  /^dist\/bin\/validators\.codecache$/,
  /^dist\/serve-assets\/(index\.html|app\.js|app\.css|favicon\.svg)$/,
  /^dist\/(src|events|machines|deciders|projections)\/.+\.(js|d\.ts)$/,
  /^(package\.json|README\.md|ARCHITECTURE\.md|LICENSE)$/,
  /^schemas\/.+\.json$/,
];

describe('the packed package', () => {
  let tarball: string;
  let files: string[];
  let installed: { bin: string; ws: string; env: NodeJS.ProcessEnv } | undefined;

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
    // `baton serve` reads the dashboard's page from here: without it the installed serve fails.
    expect(files).toContain('dist/serve-assets/index.html');
    expect(files).toContain('dist/serve-assets/app.js');
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
    installed = { bin, ws, env };
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

  it('runs every surface from the install: serve (the page and an API view), mcp (tools through the SDK client), a Claude Code hook, setup', async () => {
    expect(installed).toBeDefined();
    const { bin, ws, env } = installed!;
    // The dashboard: the page and one API view, served from the installed package's assets.
    const served = spawn(bin, ['--dir', ws, '--json', 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const serving = await firstLine(served);
      const url = new URL((JSON.parse(serving) as { url: string }).url);
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
      const view = await fetch(new URL(`/api/status?token=${url.searchParams.get('token')}`, url));
      expect(view.status).toBe(200);
      expect(JSON.parse(await view.text())).toBeTypeOf('object');
    } finally {
      served.kill('SIGTERM');
    }
    // The MCP server, through the SDK's client.
    const transport = new StdioClientTransport({ command: bin, args: ['--dir', ws, 'mcp'], env: env as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'baton-packaging-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['status', 'claim', 'checkpoint', 'send_signal', 'inbox']));
    } finally {
      await client.close();
    }
    // A Claude Code hook, fed the JSON its host sends on stdin.
    const payload = JSON.stringify({ session_id: 'claude-pack', transcript_path: '/tmp/t.jsonl', cwd: ws, hook_event_name: 'SessionStart', source: 'startup' });
    const hooked = await execWithInput(bin, ['hook', 'claude-code', 'SessionStart'], payload, { ...env, CLAUDE_PROJECT_DIR: ws }, ws);
    expect(hooked.code).toBe(0);
    expect((JSON.parse(hooked.stdout) as { hookSpecificOutput: { hookEventName: string } }).hookSpecificOutput.hookEventName).toBe('SessionStart');
    // setup, which writes the command the hooks and the MCP clients run.
    const setup = await exec(bin, ['--dir', ws, '--json', 'setup', 'claude-code'], { env });
    expect(jsonLines(setup.stdout).at(-1)).toMatchObject({ type: expect.any(String) });
    expect(readFileSync(join(ws, '.claude', 'settings.json'), 'utf8')).toContain('hook claude-code');
  }, 240_000);
});
