import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { batonIn, expectRefused, jsonLines } from './helpers/cli.js';
import { hashTree, makeTempDir, removeTempDirs, segmentBytes, segmentPaths, storedEvents } from './helpers/workspace.js';
import { WuWorkspace } from './work-units/helpers.js';

/**
 * Three ways to lose or misplace data, each with the exact repro the campaign found: an export over
 * another workspace's log, an acknowledged event thrown away after a one-byte change of its
 * newline, and a write through a `.gitignore` link (and every other file Baton writes outside
 * `.baton/`).
 */
afterEach(removeTempDirs);

const NOW = { BATON_NOW: '2026-04-17T10:00:00Z' };

async function workspaceWithNotes(texts: readonly string[], prefix = 'baton-ack-'): Promise<string> {
  const dir = makeTempDir(prefix);
  expect((await batonIn(dir, ['init'])).code).toBe(0);
  for (const text of texts) {
    const r = await batonIn(dir, ['--json', 'log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', JSON.stringify({ text })], {
      env: NOW,
    });
    expect(r.code, r.stderr).toBe(0);
  }
  return dir;
}

describe("an export never lands in any workspace's .baton/, and never replaces a file unasked", () => {
  it('baton --dir A log export --out B/.baton/log/000000000001.jsonl is refused: B keeps its three events and verifies', async () => {
    const a = await workspaceWithNotes(['a1'], 'baton-export-a-');
    const b = await workspaceWithNotes(['b1', 'b2', 'b3'], 'baton-export-b-');
    const before = segmentBytes(b);
    const r = await batonIn(a, ['--json', '--dir', a, 'log', 'export', '--out', join(b, '.baton', 'log', '000000000001.jsonl')], { env: NOW });
    expectRefused(r, 2, 'INVALID_INPUT', '--out');
    expect(segmentBytes(b).equals(before)).toBe(true);
    const verify = await batonIn(b, ['--json', 'log', 'verify'], { env: NOW });
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true, head_seq: 3 });
  });

  it("refuses a new file in another workspace's .baton/ too, reached directly or through a link, and a renamed store's log/", async () => {
    const a = await workspaceWithNotes(['a1'], 'baton-export-a-');
    const b = await workspaceWithNotes(['b1', 'b2'], 'baton-export-b-');
    const outside = makeTempDir('baton-export-links-');
    symlinkSync(join(b, '.baton'), join(outside, 'state'));
    const digest = hashTree(b);
    for (const out of [join(b, '.baton', 'cache', 'x.json'), join(b, '.baton', 'exported.jsonl'), join(outside, 'state', 'log', 'new.jsonl')]) {
      expectRefused(await batonIn(a, ['--json', 'log', 'export', '--out', out], { env: NOW }), 2, 'INVALID_INPUT', '--out');
    }
    // A store whose folder is not named .baton (a copy, a mount): still a store, by its layout.
    const copy = join(outside, 'backup-store');
    mkdirSync(join(copy, 'log'), { recursive: true });
    mkdirSync(join(copy, 'cache'));
    writeFileSync(join(copy, 'log', '000000000001.jsonl'), readFileSync(segmentPaths(b)[0]!));
    const copyBytes = readFileSync(join(copy, 'log', '000000000001.jsonl'));
    const forced = await batonIn(a, ['--json', 'log', 'export', '--force', '--out', join(copy, 'log', '000000000001.jsonl')], { env: NOW });
    expectRefused(forced, 2, 'INVALID_INPUT', 'store');
    expect(readFileSync(join(copy, 'log', '000000000001.jsonl')).equals(copyBytes)).toBe(true);
    expect(hashTree(b)).toEqual(digest);
  });

  it('an existing file is replaced only with --force; without it exit 2 and the file is byte-identical', async () => {
    const a = await workspaceWithNotes(['a1', 'a2'], 'baton-export-a-');
    const out = join(makeTempDir('baton-export-out-'), 'backup.jsonl');
    writeFileSync(out, 'precious\n');
    expectRefused(await batonIn(a, ['--json', 'log', 'export', '--out', out], { env: NOW }), 2, 'INVALID_INPUT', '--force');
    expect(readFileSync(out, 'utf8')).toBe('precious\n');
    expect(readdirSync(join(out, '..'))).toEqual(['backup.jsonl']);
    const forced = await batonIn(a, ['--json', 'log', 'export', '--out', out, '--force'], { env: NOW });
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(out).equals(segmentBytes(a))).toBe(true);
    // A fresh path needs no --force.
    const fresh = join(out, '..', 'fresh.jsonl');
    expect((await batonIn(a, ['--json', 'log', 'export', '--out', fresh], { env: NOW })).code).toBe(0);
    expect(readFileSync(fresh).equals(segmentBytes(a))).toBe(true);
  });
});

describe('a whole last event whose newline is missing or damaged is acknowledged: repaired, never quarantined', () => {
  function replaceLastByte(dir: string, byte: string | null): void {
    const segment = segmentPaths(dir)[0]!;
    const bytes = readFileSync(segment);
    writeFileSync(segment, byte === null ? bytes.subarray(0, -1) : Buffer.concat([bytes.subarray(0, -1), Buffer.from(byte)]));
  }

  it('the final \\n changed to x: verify exits 3 naming the offset; the next append restores it, keeps seq 3 and its hash, records log.repaired', async () => {
    const dir = await workspaceWithNotes(['a', 'b', 'c']);
    const original = storedEvents(dir);
    const committed = segmentBytes(dir);
    const thirdStart = committed.length - Buffer.byteLength(`${JSON.stringify(original[2])}\n`);
    replaceLastByte(dir, 'x');

    const verify = await batonIn(dir, ['--json', 'log', 'verify'], { env: NOW });
    expect(verify.code).toBe(3);
    const report = jsonLines(verify.stdout)[0] as { ok: boolean; first_bad: { seq: number; offset: number; tail: string; reason: string } };
    expect(report).toMatchObject({ ok: false, head_seq: 2, first_bad: { seq: 3, offset: thirdStart, tail: 'unterminated_event' } });
    expect(report.first_bad.reason).toContain('0x78');
    const human = await batonIn(dir, ['--human', 'log', 'verify'], { env: NOW });
    expect(human.code).toBe(3);
    expect(human.stdout + human.stderr).toMatch(/seq 3.*byte \d+/);
    expect(human.stdout + human.stderr).toContain('log repair');

    const append = await batonIn(dir, ['--json', 'log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"d"}'], { env: NOW });
    expect(append.code, append.stderr).toBe(0);
    expect(append.stderr).toContain('repaired the last event: seq 3');
    expect(append.stderr).not.toContain('torn');
    expect(jsonLines(append.stdout)[0]).toMatchObject({ type: 'appended', events: [{ seq: 5 }] });

    const after = storedEvents(dir);
    expect(after.slice(0, 3)).toEqual(original);
    expect(after[3]).toMatchObject({
      seq: 4,
      type: 'log.repaired',
      stream: 'log/recovery',
      actor: 'system',
      data: { reason: 'newline_damaged', segment: '000000000001.jsonl', seq: 3, offset: committed.length - 1, bytes_changed: 1, replaced: '78' },
    });
    expect(readFileSync(segmentPaths(dir)[0]!).subarray(0, committed.length).equals(committed)).toBe(true);
    expect(existsSync(join(dir, '.baton', 'quarantine')) ? readdirSync(join(dir, '.baton', 'quarantine')) : []).toEqual([]);
    expect(JSON.parse((await batonIn(dir, ['--json', 'log', 'verify'], { env: NOW })).stdout)).toMatchObject({ ok: true, head_seq: 5 });
  });

  it('a missing final newline: baton log repair restores it (newline_missing) and a retry of the same keyed append deduplicates', async () => {
    const dir = makeTempDir('baton-ack-');
    const keyed = ['--json', 'log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"keyed"}', '--idempotency-key', 'k-1'];
    const first = await batonIn(dir, keyed, { env: NOW });
    expect(first.code).toBe(0);
    const acknowledged = jsonLines(first.stdout)[0] as { events: { seq: number; hash: string }[] };
    const committed = segmentBytes(dir);
    replaceLastByte(dir, null);

    const verify = await batonIn(dir, ['--json', 'log', 'verify'], { env: NOW });
    expect(verify.code).toBe(3);
    expect(jsonLines(verify.stdout)[0]).toMatchObject({ ok: false, head_seq: 0, first_bad: { seq: 1, offset: 0, tail: 'unterminated_event' } });

    const repair = await batonIn(dir, ['--json', 'log', 'repair'], { env: NOW });
    expect(repair.code, repair.stderr).toBe(0);
    expect(jsonLines(repair.stdout)[0]).toMatchObject({
      type: 'log_repair',
      action: 'repaired',
      head_seq: 2,
      record: { reason: 'newline_missing', seq: 1, offset: committed.length - 1, replaced: null },
    });
    const retry = await batonIn(dir, keyed, { env: NOW });
    expect(jsonLines(retry.stdout)[0]).toMatchObject({ deduplicated: true, events: acknowledged.events.map((e) => ({ seq: e.seq, hash: e.hash })) });
    expect(storedEvents(dir).map((e) => e.type)).toEqual(['note.recorded', 'log.repaired']);
    expect((await batonIn(dir, ['--json', 'log', 'repair'], { env: NOW })).stdout).toContain('"action":"none"');
  });

  it('a truncated tail (not a whole event) is never "ok": verify exits 3 naming the offset; log repair quarantines it', async () => {
    const dir = await workspaceWithNotes(['a', 'b', 'c']);
    const committed = segmentBytes(dir);
    const thirdStart = committed.length - Buffer.byteLength(`${JSON.stringify(storedEvents(dir)[2])}\n`);
    writeFileSync(segmentPaths(dir)[0]!, committed.subarray(0, committed.length - 40));
    const verify = await batonIn(dir, ['--json', 'log', 'verify'], { env: NOW });
    expect(verify.code).toBe(3);
    expect(jsonLines(verify.stdout)[0]).toMatchObject({ ok: false, head_seq: 2, first_bad: { seq: 3, offset: thirdStart, tail: 'torn' } });
    const repair = await batonIn(dir, ['--json', 'log', 'repair'], { env: NOW });
    expect(jsonLines(repair.stdout)[0]).toMatchObject({
      action: 'quarantined',
      record: { reason: 'torn_tail', offset: thirdStart, bytes: committed.length - 40 - thirdStart },
    });
    expect(JSON.parse((await batonIn(dir, ['--json', 'log', 'verify'], { env: NOW })).stdout)).toMatchObject({ ok: true, head_seq: 3 });
  });
});

describe('no file outside .baton/ is written through a link Baton did not create', () => {
  /** A file outside the workspace, and a link to it planted at `rel` inside. */
  function plantFileLink(dir: string, rel: string): { outside: string; victim: string } {
    const outside = makeTempDir('baton-elsewhere-');
    const victim = join(outside, 'target');
    writeFileSync(victim, "not Baton's\n");
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    symlinkSync(victim, join(dir, rel));
    return { outside, victim };
  }

  it('ln -s /elsewhere/target ws/.gitignore; baton --dir ws init --gitignore: exit 3 SYMLINK_REFUSED, the outside file unchanged', async () => {
    const ws = makeTempDir('baton-gitignore-');
    const { outside, victim } = plantFileLink(ws, '.gitignore');
    const digest = hashTree(outside);
    const r = await batonIn(ws, ['--json', '--dir', ws, 'init', '--gitignore'], { env: NOW });
    expectRefused(r, 3, 'SYMLINK_REFUSED', '.gitignore');
    expect(hashTree(outside)).toEqual(digest);
    expect(readFileSync(victim, 'utf8')).toBe("not Baton's\n");
    // A dangling link is no way out either: nothing is created where it points.
    const dangling = makeTempDir('baton-gitignore-');
    const nowhere = join(makeTempDir('baton-elsewhere-'), 'absent');
    symlinkSync(nowhere, join(dangling, '.gitignore'));
    expectRefused(await batonIn(dangling, ['--json', 'init', '--gitignore'], { env: NOW }), 3, 'SYMLINK_REFUSED', '.gitignore');
    expect(existsSync(nowhere)).toBe(false);
  });

  const setups: { client: string; files: string[] }[] = [
    { client: 'claude-code', files: ['.claude/settings.json', '.mcp.json', 'CLAUDE.md'] },
    { client: 'codex', files: ['.codex/config.toml', 'AGENTS.md'] },
    { client: 'cursor', files: ['.cursor/mcp.json', 'AGENTS.md'] },
  ];
  for (const { client, files } of setups) {
    for (const file of files) {
      it(`setup ${client} refuses a link at ${file}: exit 3 naming it, nothing written outside or in the workspace`, async () => {
        const ws = makeTempDir('baton-setup-links-');
        expect((await batonIn(ws, ['init'])).code).toBe(0);
        const { outside } = plantFileLink(ws, file);
        const digest = hashTree(outside);
        const workspaceBefore = hashTree(ws);
        const r = await batonIn(ws, ['--json', 'setup', client], { env: NOW });
        expectRefused(r, 3, 'SYMLINK_REFUSED', file.split('/').at(-1)!);
        expect(hashTree(outside)).toEqual(digest);
        expect(hashTree(ws)).toEqual(workspaceBefore);
      });
    }
  }

  it('a stamp link (.baton/stamps/WU-1.done → elsewhere) refuses wu done: nothing appended, nothing outside', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    const session = await ws.startSession();
    await ws.ok(['wu', 'claim', 'WU-1'], { session });
    const { outside } = plantFileLink(ws.dir, '.baton/stamps/WU-1.done');
    const digest = hashTree(outside);
    const head = ws.headSeq();
    const error = await ws.fail(['wu', 'done', 'WU-1'], 3, { session });
    expect(error.code).toBe('SYMLINK_REFUSED');
    expect(error.message).toContain('WU-1.done');
    expect(hashTree(outside)).toEqual(digest);
    expect(ws.headSeq()).toBe(head);
  });

  it("Agent Flow's deep-dive state file link is refused: nothing written outside", async () => {
    const ws = makeTempDir('baton-flow-links-');
    const { outside } = plantFileLink(ws, '.claude/deep-dive.local.md');
    const digest = hashTree(outside);
    const r = await batonIn(ws, ['--json', 'deep-dive', 'init'], { env: NOW });
    expectRefused(r, 3, 'SYMLINK_REFUSED', 'deep-dive.local.md');
    expect(hashTree(outside)).toEqual(digest);
  });
});
