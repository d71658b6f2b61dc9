import { closeSync, existsSync, openSync, readFileSync, readSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LogVerificationEnvelope } from '../src/app/envelopes/foundation.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { batonIn, errorEnvelopeOf, jsonLines, runBaton } from './helpers/cli.js';
import { makeTempDir, removeTempDirs, segmentBytes, segmentPaths, storedEvents } from './helpers/workspace.js';

/**
 * an append to a log with a corrupt line in the middle is refused (exit 3 LOG_CORRUPT
 * naming the line) however long the log, whether the writer's catch-up would have started before
 * or after that line; `log verify` says how to recover, and the recovery it offers works.
 */
afterEach(removeTempDirs);

const NOW = { BATON_NOW: '2026-05-02T08:00:00Z' };
const note = (text: string): string[] => ['--json', 'log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', JSON.stringify({ text })];

/** A log of `count` note events, written through the library in batches of `batch` (one handle, closed). */
async function buildLog(count: number, batch: number, options: { segmentBytes?: number } = {}): Promise<string> {
  const dir = makeTempDir('baton-corrupt-');
  const store = new JsonlEventStore(dir, { now: () => NOW.BATON_NOW, ...options });
  for (let seq = 1; seq <= count; seq += batch) {
    const size = Math.min(batch, count - seq + 1);
    await store.append(
      Array.from({ length: size }, (_, i) => ({
        type: 'note.recorded',
        stream: `note/s${(seq + i) % 7}`,
        data: { text: `event number ${seq + i} of the log` },
      })),
    );
  }
  await store.close();
  return dir;
}

/** Flip one letter inside the data of the event with this seq: its seal no longer holds. */
function corruptEvent(dir: string, seq: number): void {
  for (const path of segmentPaths(dir)) {
    const text = readFileSync(path, 'utf8');
    const at = text.indexOf(`{"v":1,"seq":${seq},`);
    if (at < 0) continue;
    const target = text.indexOf('event number', at);
    const offset = Buffer.byteLength(text.slice(0, target));
    const fd = openSync(path, 'r+');
    try {
      const byte = Buffer.alloc(1);
      readSync(fd, byte, 0, 1, offset);
      writeSync(fd, Buffer.from([byte[0]! ^ 0x20]), 0, 1, offset);
    } finally {
      closeSync(fd);
    }
    return;
  }
  throw new Error(`seq ${seq} not found`);
}

async function expectAppendRefused(dir: string, seq: number): Promise<void> {
  const before = segmentBytes(dir);
  const r = await batonIn(dir, ['--json', 'log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"after the damage"}'], {
    env: NOW,
  });
  expect(r.code, r.stdout + r.stderr).toBe(3);
  const error = errorEnvelopeOf(r);
  expect(error.code).toBe('LOG_CORRUPT');
  expect(error.message).toContain(`seq ${seq}`);
  expect(segmentBytes(dir).equals(before)).toBe(true);
  // A batch and a keyed append (which loads the stream index) are refused the same way.
  const batch = await batonIn(dir, ['--json', 'log', 'append', '--events', '-', '--batch', '--idempotency-key', 'k1'], {
    env: NOW,
    input: '{"type":"note.recorded","stream":"note/a","data":{"text":"a"}}\n{"type":"note.recorded","stream":"note/a","data":{"text":"b"}}\n',
  });
  expect(batch.code, batch.stdout + batch.stderr).toBe(3);
  expect(errorEnvelopeOf(batch).code).toBe('LOG_CORRUPT');
  expect(segmentBytes(dir).equals(before)).toBe(true);
}

describe('a corrupt middle line refuses every append, on a short and a long log', () => {
  it('a 60-event log', async () => {
    const dir = await buildLog(60, 1);
    corruptEvent(dir, 30);
    await expectAppendRefused(dir, 30);
  });

  it('a 10,000-event log (its middle line is far before where a tail catch-up starts)', async () => {
    const dir = await buildLog(10_000, 100);
    // Healthy, the log takes appends (and the writer records what it checked)…
    const ok = await batonIn(dir, ['--json', 'log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"healthy"}'], { env: NOW });
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(jsonLines(ok.stdout)[0]).toMatchObject({ events: [{ seq: 10_001 }] });
    // …then a line in the middle is damaged after that record was written.
    corruptEvent(dir, 5_000);
    await expectAppendRefused(dir, 5_000);
    // Still refused on the next try, and through the library on a fresh handle.
    await expectAppendRefused(dir, 5_000);
    const store = new JsonlEventStore(dir, { now: () => NOW.BATON_NOW });
    await expect(store.append([{ type: 'note.recorded', stream: 'note/x', data: { text: 'x' } }])).rejects.toMatchObject({ code: 'LOG_CORRUPT' });
    await expect(store.streamVersion('note/s1')).rejects.toMatchObject({ code: 'LOG_CORRUPT' });
    await store.close();
  });

  it('a corrupt line in an earlier, sealed segment of a multi-segment log', async () => {
    const dir = await buildLog(3_000, 50, { segmentBytes: 64 * 1024 });
    expect(segmentPaths(dir).length).toBeGreaterThan(3);
    corruptEvent(dir, 120);
    await expectAppendRefused(dir, 120);
  });

  it('a damage the file identity cannot show (bit rot: simulated by a record matching the damaged file) is refused once a read met it', async () => {
    const dir = await buildLog(3_000, 100);
    expect((await batonIn(dir, note('healthy'), { env: NOW })).code).toBe(0);
    corruptEvent(dir, 1_500);
    const recordPath = join(dir, '.baton', 'cache', 'verified-prefix.json');
    const record = JSON.parse(readFileSync(recordPath, 'utf8')) as { segments: Record<string, unknown>[] };
    const stats = statSync(segmentPaths(dir)[0]!, { bigint: true });
    record.segments[0] = {
      ...record.segments[0],
      ino: String(stats.ino),
      size: String(stats.size),
      mtime_ns: String(stats.mtimeNs),
      ctime_ns: String(stats.ctimeNs),
    };
    writeFileSync(recordPath, JSON.stringify(record));
    const show = await batonIn(dir, ['--json', 'log', 'show'], { env: NOW });
    expect(show.code).toBe(3);
    expect(existsSync(recordPath)).toBe(false);
    await expectAppendRefused(dir, 1_500);
  });

  it('a healthy long log keeps taking appends, from the CLI and from concurrent handles', async () => {
    const dir = await buildLog(2_000, 100);
    for (let i = 0; i < 3; i++) {
      const r = await batonIn(dir, ['--json', 'log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', `{"text":"n${i}"}`], { env: NOW });
      expect(r.code, r.stdout + r.stderr).toBe(0);
    }
    const a = new JsonlEventStore(dir);
    const b = new JsonlEventStore(dir);
    await Promise.all([
      a.append([{ type: 'note.recorded', stream: 'note/a', data: { text: 'a' } }]),
      b.append([{ type: 'note.recorded', stream: 'note/b', data: { text: 'b' } }]),
    ]);
    await Promise.all([a.close(), b.close()]);
    const r = await batonIn(
      dir,
      ['--json', 'log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"last"}', '--expected-version', '3'],
      { env: NOW },
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(storedEvents(dir).map((e) => e.seq)).toEqual(Array.from({ length: 2_006 }, (_, i) => i + 1));
  });
});

describe('log verify says how to recover, and that recovery works', () => {
  it('exports the intact prefix with --to and imports it into a fresh workspace that takes appends again', async () => {
    const dir = await buildLog(400, 10);
    corruptEvent(dir, 215);
    const verify = await batonIn(dir, ['--json', 'log', 'verify'], { env: NOW });
    expect(verify.code).toBe(3);
    const report = LogVerificationEnvelope.parse(jsonLines(verify.stdout)[0]);
    // The batch holding seq 215 is 211…220: the intact prefix is every whole batch before it.
    expect(report).toMatchObject({ ok: false, head_seq: 210, first_bad: { seq: 215 }, recovery: { intact_to: 210 } });
    const human = await batonIn(dir, ['--human', 'log', 'verify'], { env: NOW });
    expect(human.stdout).toContain('log export --to 210 --out');
    expect(human.stdout).toContain('log import');

    // The steps, as printed: run each `baton …` line (arguments split on spaces; paths have none here).
    const steps = report.recovery!.steps.filter((step) => step.startsWith('baton '));
    expect(steps).toHaveLength(2);
    for (const step of steps) {
      const r = await runBaton(['--json', ...step.split(' ').slice(1)], { env: NOW });
      expect(r.code, `${step}\n${r.stdout}${r.stderr}`).toBe(0);
    }
    const restored = `${dir}-restored`;
    const restoredVerify = await batonIn(restored, ['--json', 'log', 'verify'], { env: NOW });
    expect(JSON.parse(restoredVerify.stdout)).toMatchObject({ ok: true, head_seq: 210 });
    const again = await batonIn(restored, ['--json', 'log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"back"}'], {
      env: NOW,
    });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(jsonLines(again.stdout)[0]).toMatchObject({ events: [{ seq: 211 }] });
    // The old log is untouched, its events after the damage still there for inspection.
    expect(
      storedEvents(restored)
        .slice(0, 210)
        .map((e) => e.hash),
    ).toEqual(
      readFileSync(segmentPaths(dir)[0]!, 'utf8')
        .split('\n')
        .slice(0, 210)
        .map((line) => JSON.parse(line).hash),
    );
    removeLater(restored);
    removeLater(`${dir}-intact-210.jsonl`);
  });

  it('log export --to stops before a corrupt line and is checked like every other flag', async () => {
    const dir = await buildLog(50, 1);
    corruptEvent(dir, 40);
    const out = join(makeTempDir('baton-out-'), 'prefix.jsonl');
    const r = await batonIn(dir, ['--json', 'log', 'export', '--to', '39', '--out', out], { env: NOW });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(jsonLines(r.stdout)[0]).toMatchObject({ events: 39, head_seq: 39 });
    // --force: replacing the good export is asked for; the read fails before anything is replaced.
    const past = await batonIn(dir, ['--json', 'log', 'export', '--to', '45', '--out', out, '--force'], { env: NOW });
    expect(past.code).toBe(3);
    expect(errorEnvelopeOf(past).code).toBe('LOG_CORRUPT');
    // The failed export left the good one in place.
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(39);
    const bad = await batonIn(dir, ['--json', 'log', 'export', '--to', 'x', '--out', out], { env: NOW });
    expect(bad.code).toBe(2);
    expect(errorEnvelopeOf(bad).message).toContain('--to');
  });
});

const extra: string[] = [];
function removeLater(path: string): void {
  extra.push(path);
}
afterEach(async () => {
  const { rmSync } = await import('node:fs');
  for (const path of extra.splice(0)) rmSync(path, { recursive: true, force: true });
});
