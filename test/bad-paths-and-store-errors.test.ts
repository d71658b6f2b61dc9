import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { batonIn, errorEnvelopeOf, jsonLines, runBaton, type CliResult } from './helpers/cli.js';
import { hashTree, makeTempDir, removeTempDirs, segmentBytes, storedEvents } from './helpers/workspace.js';

/**
 * a file-system error on a path the user gave is exit 2 naming the flag and
 * the path, never exit 1; a store Baton cannot write is exit 5 STORE_UNAVAILABLE naming it; a full
 * disk leaves no partial batch and no empty quarantine file, and says what happened; `resume
 * --execute` runs this Baton; `mem converged` answers "not converged" with exit 6, not 1.
 */
const mounts: string[] = [];
afterEach(() => {
  for (const dir of mounts.splice(0)) execFileSync('umount', ['-l', dir]);
  removeTempDirs();
});

const NOW = { BATON_NOW: '2026-06-01T10:00:00Z' };
const note = (text: string): string[] => ['log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', JSON.stringify({ text })];

function expectExit(r: CliResult, exit: number, code: string, ...named: string[]): void {
  expect(r.code, r.stdout + r.stderr).toBe(exit);
  const error = errorEnvelopeOf(r);
  expect(error.code).toBe(code);
  for (const part of named) expect(error.message).toContain(part);
}

/** Mount a file system for a test (root only: skipped elsewhere). */
function tryMount(args: string[], target: string): boolean {
  try {
    execFileSync('mount', [...args, target], { stdio: 'ignore' });
    mounts.push(target);
    return true;
  } catch {
    return false;
  }
}

const canMount = ((): boolean => {
  const probe = makeTempDir('baton-mount-probe-');
  const ok = tryMount(['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs'], probe);
  if (ok) execFileSync('umount', ['-l', mounts.pop()!]);
  return ok;
})();

describe('--dir that is not a usable folder: exit 2 naming --dir and the path, nothing created', () => {
  it('a file, /dev/null, a path under a file, a dangling link, a missing folder, a name too long', async () => {
    const base = makeTempDir('baton-baddir-');
    const file = join(base, 'plain.txt');
    writeFileSync(file, 'x');
    const links = makeTempDir('baton-baddir-links-');
    const dangling = join(links, 'dangling');
    symlinkSync(join(links, 'nowhere'), dangling);
    const before = hashTree(base);
    const cases = [file, '/dev/null', join(file, 'below'), dangling, join(base, 'missing', 'deeper'), join(base, 'n'.repeat(300))];
    const commands = [['init'], note('x'), ['log', 'verify'], ['status'], ['log', 'stats'], ['mem', 'inbox', '--session', 's1']];
    for (const dir of cases) {
      const viaEnv = await runBaton(['--json', 'log', 'verify'], { env: { ...NOW, BATON_DIR: dir } });
      expectExit(viaEnv, 2, 'INVALID_INPUT', 'BATON_DIR');
    }
    // Each --dir with each command, as a property: every run pairs each path with a command of its
    // own (so every path and every command is met) and adds pairs drawn at random; the runs cover all.
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...cases), fc.constantFrom(...commands), async (dir, args) => {
        const r = await runBaton(['--json', '--dir', dir, ...args], { env: NOW });
        expectExit(r, 2, 'INVALID_INPUT', '--dir', dir.length > 200 ? 'nnnn' : dir);
      }),
      { numRuns: cases.length + 4, examples: cases.map((dir, i) => [dir, commands[i % commands.length]!] as [string, string[]]) },
    );
    expect(hashTree(base)).toEqual(before);
    expect(readdirSync(links)).toEqual(['dangling']);
  });

  it('init and log import create a missing workspace folder whose parent exists', async () => {
    const base = makeTempDir('baton-newdir-');
    const r = await runBaton(['--json', '--dir', join(base, 'fresh'), 'init'], { env: NOW });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(statSync(join(base, 'fresh', '.baton', 'log')).isDirectory()).toBe(true);
  });
});

describe('the library names a workspace folder that does not exist yet', () => {
  it('the store creates it with its parents (the CLI checks --dir first; the benchmarks rely on this)', async () => {
    const { JsonlEventStore } = await import('../src/store/jsonl/jsonl-store.js');
    const dir = join(makeTempDir('baton-lib-'), 'a', 'b');
    const store = new JsonlEventStore(dir);
    await store.append([{ type: 'note.recorded', stream: 'note/x', data: { text: 'x' } }]);
    await store.close();
    expect(storedEvents(dir).map((e) => e.seq)).toEqual([1]);
  });
});

describe('file arguments: exit 2 naming the flag and the path', () => {
  it('log append --events: a missing file, a folder, a name too long; nothing appended', async () => {
    const dir = makeTempDir('baton-events-');
    expect((await batonIn(dir, note('first'), { env: NOW })).code).toBe(0);
    const before = segmentBytes(dir);
    for (const path of [join(dir, 'missing.jsonl'), dir, join(dir, 'x'.repeat(300))]) {
      const r = await batonIn(dir, ['--json', 'log', 'append', '--events', path], { env: NOW });
      expectExit(r, 2, 'INVALID_INPUT', '--events', path.slice(0, 40));
    }
    expect(segmentBytes(dir).equals(before)).toBe(true);
  });

  it('log import: a missing file, a folder, a name too long; the target store stays empty', async () => {
    const dir = makeTempDir('baton-import-');
    for (const path of [join(dir, 'missing.jsonl'), makeTempDir('baton-folder-'), join(dir, 'y'.repeat(300))]) {
      const r = await batonIn(dir, ['--json', 'log', 'import', path], { env: NOW });
      expectExit(r, 2, 'INVALID_INPUT', 'file', path.slice(0, 40));
    }
    expect(existsSync(join(dir, '.baton', 'log', '000000000001.jsonl'))).toBe(false);
  });

  it('log export --out: a name too long, a folder, a missing parent', async () => {
    const dir = makeTempDir('baton-export-');
    expect((await batonIn(dir, note('first'), { env: NOW })).code).toBe(0);
    for (const out of [join(dir, 'z'.repeat(300)), dir, join(dir, 'missing', 'out.jsonl')]) {
      const r = await batonIn(dir, ['--json', 'log', 'export', '--out', out], { env: NOW });
      expectExit(r, 2, 'INVALID_INPUT', '--out');
    }
  });
});

describe.skipIf(!canMount)('a store Baton cannot write: exit 5 STORE_UNAVAILABLE naming it (read-only mounts, root only)', () => {
  it('a read-only workspace: appends and init exit 5 naming the path; reads still work', async () => {
    const dir = makeTempDir('baton-ro-src-');
    expect((await batonIn(dir, note('before'), { env: NOW })).code).toBe(0);
    const ro = makeTempDir('baton-ro-');
    expect(tryMount(['--bind', dir], ro)).toBe(true);
    execFileSync('mount', ['-o', 'remount,bind,ro', ro]);
    const before = hashTree(dir);
    expectExit(await batonIn(ro, ['--json', ...note('refused')], { env: NOW }), 5, 'STORE_UNAVAILABLE', ro, 'read-only');
    expectExit(
      await batonIn(ro, ['--json', 'log', 'append', '--events', '-', '--batch'], {
        env: NOW,
        input: '{"type":"note.recorded","stream":"note/a","data":{"text":"a"}}\n',
      }),
      5,
      'STORE_UNAVAILABLE',
      ro,
    );
    const empty = makeTempDir('baton-ro-empty-src-');
    const roEmpty = makeTempDir('baton-ro-empty-');
    expect(tryMount(['--bind', empty], roEmpty)).toBe(true);
    execFileSync('mount', ['-o', 'remount,bind,ro', roEmpty]);
    expectExit(await batonIn(roEmpty, ['--json', 'init'], { env: NOW }), 5, 'STORE_UNAVAILABLE', roEmpty);
    for (const args of [['log', 'verify'], ['log', 'stats'], ['status']]) {
      const r = await batonIn(ro, ['--json', ...args], { env: NOW });
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
    }
    expect(hashTree(dir)).toEqual(before);
  });

  it('a full disk: exit 5 saying what happened to the batch, no partial batch, no empty quarantine file, nothing acknowledged lost', async () => {
    const dir = makeTempDir('baton-full-');
    expect(tryMount(['-t', 'tmpfs', '-o', 'size=96k', 'tmpfs'], dir)).toBe(true);
    expect((await batonIn(dir, ['--json', 'init'], { env: NOW })).code).toBe(0);
    const acknowledged: string[] = [];
    let failures = 0;
    const big = 'x'.repeat(1500);
    for (let i = 0; i < 120 && failures < 6; i++) {
      const batch = Array.from({ length: 1 + (i % 5) }, (_, k) =>
        JSON.stringify({ type: 'note.recorded', stream: 'note/full', data: { text: `${i}.${k} ${big}` } }),
      ).join('\n');
      const r = await batonIn(dir, ['--json', 'log', 'append', '--events', '-', '--batch', '--each'], { env: NOW, input: `${batch}\n` });
      if (r.code === 0) {
        for (const e of (jsonLines(r.stdout)[0] as { events: { hash: string }[] }).events) acknowledged.push(e.hash);
        continue;
      }
      failures += 1;
      expectExit(r, 5, 'STORE_UNAVAILABLE', 'no space left', 'was not appended', join(dir, '.baton'));
      const { message } = errorEnvelopeOf(r);
      // Either nothing was written, or what was is said: cut off again, or left for quarantine.
      expect(/nothing was written|cut off again|stay at .* unacknowledged/.test(message), message).toBe(true);
    }
    expect(failures).toBeGreaterThan(0);
    // No partial batch is left in the log, and every acknowledged event is there.
    const text = readFileSync(join(dir, '.baton', 'log', '000000000001.jsonl'), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const events = storedEvents(dir);
    for (const e of events) if (e.batch_end !== undefined) expect(events.some((other) => other.seq === e.batch_end)).toBe(true);
    expect(events.map((e) => e.hash)).toEqual(expect.arrayContaining(acknowledged));
    const quarantine = join(dir, '.baton', 'quarantine');
    for (const name of existsSync(quarantine) ? readdirSync(quarantine) : []) expect(statSync(join(quarantine, name)).size, name).toBeGreaterThan(0);
    const verify = await batonIn(dir, ['--json', 'log', 'verify'], { env: NOW });
    expect(verify.code, verify.stdout).toBe(0);
  });
});

describe('resume --execute and mem converged', () => {
  it('resume --execute runs this Baton even when no baton is on PATH', async () => {
    const dir = makeTempDir('baton-resume-');
    const start = await batonIn(dir, ['--json', 'session', 'start', '--client', 'codex', '--goal', 'g'], { env: NOW });
    expect(start.code, start.stdout + start.stderr).toBe(0);
    const id = (jsonLines(start.stdout)[0] as { session: { id: string } }).session.id;
    const emptyPath = makeTempDir('baton-nopath-');
    mkdirSync(join(emptyPath, 'bin'));
    const r = await batonIn(dir, ['--json', 'resume', id, '--execute'], { env: { ...NOW, PATH: join(emptyPath, 'bin') } });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const lines = jsonLines(r.stdout) as { type: string }[];
    expect(lines[0]).toMatchObject({ executed: true });
    // The command ran: its own output follows the resume envelope.
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.some((line) => line.type === 'error')).toBe(false);
  });

  it('mem converged: "not converged" is exit 6 with its envelope, never 1', async () => {
    const dir = makeTempDir('baton-converged-');
    const ids: string[] = [];
    for (const client of ['codex', 'claude-code']) {
      const r = await batonIn(dir, ['--json', 'session', 'start', '--client', client, '--agent-identity', `${client}:x`], { env: NOW });
      ids.push((jsonLines(r.stdout)[0] as { session: { id: string } }).session.id);
    }
    const sent = await batonIn(dir, ['--json', '--session', ids[0]!, 'mem', 'signal', 'ok?', '--to', ids[1]!, '--intent', 'PROPOSE'], { env: NOW });
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    const thread = (jsonLines(sent.stdout)[0] as { signal: { thread_id: string } }).signal.thread_id;
    const open = await batonIn(dir, ['--json', 'mem', 'converged', '--thread', thread], { env: NOW });
    expect(open.code).toBe(6);
    expect(jsonLines(open.stdout)[0]).toMatchObject({ type: 'convergence', state: 'open' });
  });
});
