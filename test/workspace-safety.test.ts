import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { batonIn, expectRefused } from './helpers/cli.js';
import { makeTempDir, removeTempDirs, segmentBytes, segmentPaths, hashTree } from './helpers/workspace.js';
import { WuWorkspace } from './work-units/helpers.js';

/**
 * Two defects that must never come back: nothing a user types may wipe the log (an export onto a live
 * segment), and Baton never writes (or reads) through a symlink planted inside the workspace.
 */
afterEach(removeTempDirs);

const NOW = { BATON_NOW: '2026-04-17T10:00:00Z' };

async function workspaceWithEvents(count: number): Promise<string> {
  const dir = makeTempDir('baton-safety-');
  const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ type: 'note.recorded', stream: 'note/ops', data: { text: `n${i}` } })).join('\n');
  const r = await batonIn(dir, ['--json', 'log', 'append', '--events', '-', '--batch'], { env: NOW, input: `${lines}\n` });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return dir;
}

describe('log export never writes into .baton/', () => {
  it('refuses --out naming the live segment: exit 2 naming --out, the log unchanged and still verifiable', async () => {
    const dir = await workspaceWithEvents(5);
    const before = segmentBytes(dir);
    const segment = segmentPaths(dir)[0]!;
    for (const out of [segment, join('.baton', 'log', '000000000001.jsonl'), join(dir, '.baton', 'log', 'other.jsonl'), join(dir, '.baton')]) {
      const r = await batonIn(dir, ['--json', 'log', 'export', '--out', out], { env: NOW, cwd: dir });
      expectRefused(r, 2, 'INVALID_INPUT', '--out');
      expect(segmentBytes(dir).equals(before)).toBe(true);
    }
    expect(readdirSync(join(dir, '.baton', 'log')).filter((n) => !n.startsWith('.'))).toEqual(['000000000001.jsonl']);
    const verify = await batonIn(dir, ['--json', 'log', 'verify'], { env: NOW });
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true, head_seq: 5 });
  });

  it('refuses an --out that reaches the segment through a symlink outside the workspace', async () => {
    const dir = await workspaceWithEvents(3);
    const before = segmentBytes(dir);
    const outside = makeTempDir('baton-outside-');
    const link = join(outside, 'export.jsonl');
    symlinkSync(segmentPaths(dir)[0]!, link);
    expectRefused(await batonIn(dir, ['--json', 'log', 'export', '--out', link], { env: NOW }), 2, 'INVALID_INPUT', '--out');
    const linkToFolder = join(outside, 'logdir');
    symlinkSync(join(dir, '.baton', 'log'), linkToFolder);
    expectRefused(await batonIn(dir, ['--json', 'log', 'export', '--out', join(linkToFolder, 'x.jsonl')], { env: NOW }), 2, 'INVALID_INPUT', '--out');
    expect(segmentBytes(dir).equals(before)).toBe(true);
  });

  it('writes through a temporary file: a failed export leaves an existing file as it was', async () => {
    const dir = await workspaceWithEvents(4);
    const out = join(makeTempDir('baton-out-'), 'export.jsonl');
    writeFileSync(out, 'precious\n');
    // A corrupt middle line makes the read fail part-way.
    const segment = segmentPaths(dir)[0]!;
    const lines = readFileSync(segment, 'utf8').split('\n');
    lines[1] = lines[1]!.replace('"n1"', '"nX"');
    writeFileSync(segment, lines.join('\n'));
    const r = await batonIn(dir, ['--json', 'log', 'export', '--out', out, '--force'], { env: NOW });
    expect(r.code).toBe(3);
    expect(readFileSync(out, 'utf8')).toBe('precious\n');
    expect(readdirSync(join(out, '..'))).toEqual(['export.jsonl']);
  });

  it('names --out for a folder or a missing parent (exit 2), and exports normally otherwise', async () => {
    const dir = await workspaceWithEvents(2);
    const outDir = makeTempDir('baton-out-');
    expectRefused(await batonIn(dir, ['--json', 'log', 'export', '--out', outDir], { env: NOW }), 2, 'INVALID_INPUT', '--out');
    expectRefused(await batonIn(dir, ['--json', 'log', 'export', '--out', join(outDir, 'nodir', 'x.jsonl')], { env: NOW }), 2, 'INVALID_INPUT', '--out');
    const ok = await batonIn(dir, ['--json', 'log', 'export', '--out', join(outDir, 'x.jsonl')], { env: NOW });
    expect(ok.code, ok.stderr).toBe(0);
    expect(readFileSync(join(outDir, 'x.jsonl')).equals(segmentBytes(dir))).toBe(true);
  });
});

describe('planted symlinks inside the workspace are refused, nothing written outside', () => {
  function plantLink(workspace: string, rel: string): string {
    const outside = makeTempDir('baton-elsewhere-');
    mkdirSync(join(workspace, rel, '..'), { recursive: true });
    rmSync(join(workspace, rel), { recursive: true, force: true });
    symlinkSync(outside, join(workspace, rel));
    return outside;
  }

  it('.baton/artifacts → orchestrate run refused with exit 3 naming the path; nothing appended', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    const outside = plantLink(ws.dir, '.baton/artifacts');
    const head = ws.headSeq();
    const error = await ws.fail(['orchestrate', 'run', 'INIT-1'], 3);
    expect(error.code).toBe('SYMLINK_REFUSED');
    expect(error.message).toContain(join('.baton', 'artifacts'));
    expect(readdirSync(outside)).toEqual([]);
    expect(ws.headSeq()).toBe(head);
  });

  it('.baton/artifacts/orchestration (deeper on the path) is refused too', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    const outside = plantLink(ws.dir, '.baton/artifacts/orchestration');
    expect((await ws.fail(['orchestrate', 'run', 'INIT-1'], 3)).code).toBe('SYMLINK_REFUSED');
    expect(readdirSync(outside)).toEqual([]);
  });

  it('.baton/stamps → wu done refused, nothing appended, no stamp outside', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    const session = await ws.startSession();
    await ws.ok(['wu', 'claim', 'WU-1'], { session });
    const outside = plantLink(ws.dir, '.baton/stamps');
    const head = ws.headSeq();
    const error = await ws.fail(['wu', 'done', 'WU-1'], 3, { session });
    expect(error.code).toBe('SYMLINK_REFUSED');
    expect(error.message).toContain(join('.baton', 'stamps'));
    expect(readdirSync(outside)).toEqual([]);
    expect(ws.headSeq()).toBe(head);
  });

  it('.baton/quarantine → a torn tail is not moved outside; the append is refused and the tail kept', async () => {
    const dir = await workspaceWithEvents(3);
    const outside = plantLink(dir, '.baton/quarantine');
    appendFileSync(segmentPaths(dir)[0]!, '{"v":1,"seq":4,"torn');
    const before = segmentBytes(dir);
    const r = await batonIn(dir, ['--json', 'log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"x"}'], { env: NOW });
    expectRefused(r, 3, 'SYMLINK_REFUSED', 'quarantine');
    expect(readdirSync(outside)).toEqual([]);
    expect(segmentBytes(dir).equals(before)).toBe(true);
  });

  it('.baton/log → reads and appends refused (no other log is read or extended)', async () => {
    const dir = await workspaceWithEvents(2);
    const other = await workspaceWithEvents(1);
    rmSync(join(dir, '.baton', 'log'), { recursive: true });
    symlinkSync(join(other, '.baton', 'log'), join(dir, '.baton', 'log'));
    const before = segmentBytes(other);
    for (const args of [
      ['log', 'verify'],
      ['log', 'show'],
      ['status'],
      ['log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"x"}'],
    ]) {
      expectRefused(await batonIn(dir, ['--json', ...args], { env: NOW }), 3, 'SYMLINK_REFUSED', join('.baton', 'log'));
    }
    expect(segmentBytes(other).equals(before)).toBe(true);
  });

  it('a segment file that is a symlink is refused', async () => {
    const dir = await workspaceWithEvents(2);
    const other = await workspaceWithEvents(2);
    const segment = segmentPaths(dir)[0]!;
    rmSync(segment);
    symlinkSync(segmentPaths(other)[0]!, segment);
    expectRefused(await batonIn(dir, ['--json', 'log', 'verify'], { env: NOW }), 3, 'SYMLINK_REFUSED', '000000000001.jsonl');
  });

  it('.baton/cache → status refused, no snapshot written outside', async () => {
    const dir = await workspaceWithEvents(2);
    const outside = plantLink(dir, '.baton/cache');
    expectRefused(await batonIn(dir, ['--json', 'mem', 'roster'], { env: NOW }), 3, 'SYMLINK_REFUSED', join('.baton', 'cache'));
    expect(readdirSync(outside)).toEqual([]);
  });

  it('.claude → flow init and deep-dive init refused, nothing appended, nothing outside', async () => {
    const dir = makeTempDir('baton-flow-safety-');
    expect((await batonIn(dir, ['--json', 'init'], { env: NOW })).code).toBe(0);
    const outside = plantLink(dir, '.claude');
    for (const args of [
      ['flow', 'init', 'Ship', 'it'],
      ['deep-dive', 'init'],
    ]) {
      expectRefused(await batonIn(dir, ['--json', ...args], { env: NOW }), 3, 'SYMLINK_REFUSED', '.claude');
    }
    expect(readdirSync(outside)).toEqual([]);
    expect(segmentPaths(dir).every((p) => readFileSync(p).length === 0)).toBe(true);
  });

  it('a planted state file link (.claude/orchestration.local.md → elsewhere) is replaced, never written through', async () => {
    const dir = makeTempDir('baton-flow-safety-');
    const outside = makeTempDir('baton-elsewhere-');
    const victim = join(outside, 'victim.txt');
    writeFileSync(victim, 'keep me\n');
    mkdirSync(join(dir, '.claude'));
    symlinkSync(victim, join(dir, '.claude', 'orchestration.local.md'));
    const digest = hashTree(outside);
    const r = await batonIn(dir, ['--json', 'flow', 'init', 'Ship', 'it'], { env: NOW });
    expectRefused(r, 3, 'SYMLINK_REFUSED', 'orchestration.local.md');
    expect(hashTree(outside)).toEqual(digest);
    expect(existsSync(join(dir, '.baton', 'log', '000000000001.jsonl')) ? readFileSync(join(dir, '.baton', 'log', '000000000001.jsonl')).length : 0).toBe(0);
  });
});
