import { appendFileSync, closeSync, cpSync, openSync, readFileSync, readSync, rmSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../events/envelope.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { batonIn, errorEnvelopeOf, jsonLines } from './helpers/cli.js';
import { makeTempDir, removeTempDirs, segmentPaths, storedLines } from './helpers/workspace.js';

/**
 * A read that starts near the end of the log (`log show --from N`, `log tail`, the library's
 * read({from})) seeks there and reads only the last lines. A line damaged before its start must
 * still be met: the read fails with the LOG_CORRUPT a full read gives (exit 3, naming the seq and
 * byte offset), having printed no event; on a healthy log it prints exactly the lines asked for.
 */
afterAll(removeTempDirs);

const EVENTS = 10_000;
const NOW = '2026-05-02T08:00:00Z';

/** A log of EVENTS notes written through the library in batches of 100 (one handle, closed: the verified prefix is recorded). */
async function buildLog(options: { segmentBytes?: number } = {}): Promise<string> {
  const dir = makeTempDir('baton-partial-read-');
  const store = new JsonlEventStore(dir, { now: () => NOW, ...options });
  for (let seq = 1; seq <= EVENTS; seq += 100) {
    await store.append(
      Array.from({ length: 100 }, (_, i) => ({
        type: 'note.recorded',
        stream: `note/s${(seq + i) % 7}`,
        data: { text: `event number ${seq + i} of the log` },
      })),
    );
  }
  await store.close();
  return dir;
}

let single: string;
let segmented: string;

beforeAll(async () => {
  single = await buildLog();
  segmented = await buildLog({ segmentBytes: 256 * 1024 });
}, 120_000);

/** A fresh copy of a built workspace, so each test damages its own. */
function copyOf(source: string): string {
  const dir = makeTempDir('baton-partial-read-copy-');
  cpSync(join(source, '.baton'), join(dir, '.baton'), { recursive: true });
  return dir;
}

/** The segment file holding the event with this seq, and the byte offsets of its line and of its text's first letter. */
function locate(dir: string, seq: number): { path: string; segment: string; offset: number; letter: number } {
  for (const path of segmentPaths(dir)) {
    const text = readFileSync(path, 'utf8');
    const at = text.indexOf(`{"v":1,"seq":${seq},`);
    if (at < 0) continue;
    return {
      path,
      segment: basename(path),
      offset: Buffer.byteLength(text.slice(0, at)),
      letter: Buffer.byteLength(text.slice(0, text.indexOf('event number', at))),
    };
  }
  throw new Error(`seq ${seq} not found`);
}

/** Flip one letter inside the data of the event with this seq (its seal no longer holds); returns where its line starts. */
function corruptEvent(dir: string, seq: number): { segment: string; offset: number } {
  const { path, segment, offset, letter } = locate(dir, seq);
  const fd = openSync(path, 'r+');
  try {
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, letter);
    writeSync(fd, Buffer.from([byte[0]! ^ 0x20]), 0, 1, letter);
  } finally {
    closeSync(fd);
  }
  return { segment, offset };
}

const seqRange = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The command prints exactly the stored lines of these seqs, byte for byte, and exits 0. */
async function expectPrints(dir: string, args: readonly string[], seqs: readonly number[], lines = storedLines(dir)): Promise<void> {
  const r = await batonIn(dir, ['--json', ...args], { env: { BATON_NOW: NOW } });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(r.stdout).toBe(seqs.map((seq) => `${lines[seq - 1]!}\n`).join(''));
}

/** The command fails with LOG_CORRUPT naming the damaged line, and prints no event: JSON mode and human mode. */
async function expectRefused(dir: string, args: readonly string[], bad: { seq: number; segment: string; offset: number }): Promise<void> {
  const json = await batonIn(dir, ['--json', ...args], { env: { BATON_NOW: NOW } });
  expect(json.code, json.stdout + json.stderr).toBe(3);
  // The error envelope is the only line on stdout: no event was printed before it.
  expect(jsonLines(json.stdout)).toHaveLength(1);
  const error = errorEnvelopeOf(json);
  expect(error.code).toBe('LOG_CORRUPT');
  expect(error.message).toContain(`seq ${bad.seq}`);
  expect(error.message).toContain(`byte ${bad.offset}`);
  expect(error.details).toMatchObject({ seq: bad.seq, offset: bad.offset, segment: bad.segment });
  const human = await batonIn(dir, ['--human', ...args], { env: { BATON_NOW: NOW } });
  expect(human.code, human.stdout + human.stderr).toBe(3);
  expect(human.stdout).toBe('');
  expect(human.stderr).toContain(`seq ${bad.seq}`);
}

/** What the library's three reads from `from` give: the events, or the error they end with. */
async function libraryReads(dir: string, from: number): Promise<{ read: unknown; readLines: unknown; readChunks: unknown }> {
  const store = new JsonlEventStore(dir, { now: () => NOW });
  const outcome = async <T>(items: AsyncIterable<T>, events: (item: T) => readonly StoredEvent[]): Promise<unknown> => {
    const seqs: number[] = [];
    try {
      for await (const item of items) for (const event of events(item)) seqs.push(event.seq);
      return { seqs };
    } catch (error) {
      return { seqs, error: { code: (error as { code?: unknown }).code, details: (error as { details?: unknown }).details } };
    }
  };
  try {
    return {
      read: await outcome(store.read({ from }), (event) => [event]),
      readLines: await outcome(store.readLines({ from }), (item) => [item.event]),
      readChunks: await outcome(store.readChunks({ from }), (chunk) => chunk),
    };
  } finally {
    await store.close();
  }
}

describe('a read that starts near the end checks the lines before its start', () => {
  it('`log show --from 9990` prints exactly 9990…10000 of a healthy log, and once a line early in the log is flipped, exits 3 naming it with no event printed', async () => {
    const dir = copyOf(single);
    await expectPrints(dir, ['log', 'show', '--from', '9990'], seqRange(9990, EVENTS));
    const bad = corruptEvent(dir, 100);
    await expectRefused(dir, ['log', 'show', '--from', '9990'], { seq: 100, ...bad });
    // Filters and an upper bound past the damage do not change that.
    await expectRefused(dir, ['log', 'show', '--from', '9990', '--to', '9995', '--stream', 'note/s1'], { seq: 100, ...bad });
  });

  it('`log tail -n 3` prints the last three lines of a healthy log, and once a line near the end (before them) is flipped, exits 3 naming it', async () => {
    const dir = copyOf(single);
    await expectPrints(dir, ['log', 'tail', '-n', '3'], seqRange(9998, EVENTS));
    const bad = corruptEvent(dir, 9_400);
    await expectRefused(dir, ['log', 'tail', '-n', '3'], { seq: 9_400, ...bad });
    await expectRefused(dir, ['log', 'show', '--from', '9990'], { seq: 9_400, ...bad });
  });

  it('`log tail -n 3 -f` on a damaged log exits 3 before following, printing nothing', async () => {
    const dir = copyOf(single);
    const bad = corruptEvent(dir, 5_000);
    const r = await batonIn(dir, ['--json', 'log', 'tail', '-n', '3', '-f'], { timeoutMs: 30_000 });
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(jsonLines(r.stdout)).toHaveLength(1);
    expect(errorEnvelopeOf(r).details).toMatchObject({ seq: 5_000, offset: bad.offset });
  });

  it('without the verified-prefix record (.baton/cache deleted), a healthy log still prints the right lines and a damaged one is refused', async () => {
    const dir = copyOf(single);
    rmSync(join(dir, '.baton', 'cache'), { recursive: true, force: true });
    await expectPrints(dir, ['log', 'tail', '-n', '3'], seqRange(9998, EVENTS));
    await expectPrints(dir, ['log', 'show', '--from', '9990'], seqRange(9990, EVENTS));
    const bad = corruptEvent(dir, 9_400);
    rmSync(join(dir, '.baton', 'cache'), { recursive: true, force: true });
    await expectRefused(dir, ['log', 'show', '--from', '9990'], { seq: 9_400, ...bad });
    await expectRefused(dir, ['log', 'tail', '-n', '3'], { seq: 9_400, ...bad });
  });

  it('in a log of many segments, a flip in an earlier segment and one in the last segment before the read start are both refused', async () => {
    const early = copyOf(segmented);
    expect(segmentPaths(early).length).toBeGreaterThan(4);
    await expectPrints(early, ['log', 'show', '--from', '9990'], seqRange(9990, EVENTS));
    const earlyBad = corruptEvent(early, 1_000);
    expect(earlyBad.segment).not.toBe(basename(segmentPaths(early).at(-1)!));
    await expectRefused(early, ['log', 'show', '--from', '9990'], { seq: 1_000, ...earlyBad });
    await expectRefused(early, ['log', 'tail', '-n', '3'], { seq: 1_000, ...earlyBad });

    const late = copyOf(segmented);
    const last = segmentPaths(late).at(-1)!;
    const firstInLast = Number(basename(last).replace('.jsonl', ''));
    // Early in the last segment, far before the read's start: a seek to seq 9990 lands at most
    // 64 KiB before its line (segment-scan.ts seekOffset), well after this one.
    const lateSeq = firstInLast + 1;
    expect(locate(late, 9990).offset - locate(late, lateSeq).offset).toBeGreaterThan(80 * 1024);
    const lateBad = corruptEvent(late, lateSeq);
    expect(lateBad.segment).toBe(basename(last));
    await expectRefused(late, ['log', 'show', '--from', '9990'], { seq: lateSeq, ...lateBad });
    await expectRefused(late, ['log', 'tail', '-n', '3'], { seq: lateSeq, ...lateBad });
  });

  it('the library read({from}), readLines and readChunks yield nothing and reject with LOG_CORRUPT naming the flipped line', async () => {
    const dir = copyOf(single);
    const healthy = seqRange(9990, EVENTS);
    expect(await libraryReads(dir, 9990)).toEqual({ read: { seqs: healthy }, readLines: { seqs: healthy }, readChunks: { seqs: healthy } });
    const bad = corruptEvent(dir, 9_400);
    const refused = { seqs: [], error: { code: 'LOG_CORRUPT', details: expect.objectContaining({ seq: 9_400, offset: bad.offset, segment: bad.segment }) } };
    expect(await libraryReads(dir, 9990)).toEqual({ read: refused, readLines: refused, readChunks: refused });

    const segmentedCopy = copyOf(segmented);
    const early = corruptEvent(segmentedCopy, 1_000);
    const refusedEarly = { seqs: [], error: { code: 'LOG_CORRUPT', details: expect.objectContaining({ seq: 1_000, offset: early.offset }) } };
    expect(await libraryReads(segmentedCopy, 9990)).toEqual({ read: refusedEarly, readLines: refusedEarly, readChunks: refusedEarly });
  });

  it('a handle that already read the healthy log refuses the same read once a line before its start is flipped', async () => {
    const dir = copyOf(segmented);
    const store = new JsonlEventStore(dir, { now: () => NOW });
    try {
      const seqs = async (from: number): Promise<number[]> => {
        const out: number[] = [];
        for await (const event of store.read({ from })) out.push(event.seq);
        return out;
      };
      expect(await seqs(1)).toEqual(seqRange(1, EVENTS));
      expect(await seqs(9990)).toEqual(seqRange(9990, EVENTS));
      const bad = corruptEvent(dir, 2_000);
      await expect(seqs(9990)).rejects.toMatchObject({ code: 'LOG_CORRUPT', details: { seq: 2_000, offset: bad.offset, segment: bad.segment } });
    } finally {
      await store.close();
    }
  });

  it('torn bytes after the last event are still ignored by a partial read, while a flipped line before its start is not', async () => {
    const dir = copyOf(single);
    const lines = storedLines(dir);
    appendFileSync(segmentPaths(dir).at(-1)!, '{"v":1,"seq":10001,"id":"torn');
    await expectPrints(dir, ['log', 'tail', '-n', '3'], seqRange(9998, EVENTS), lines);
    await expectPrints(dir, ['log', 'show', '--from', '9990'], seqRange(9990, EVENTS), lines);
    const bad = corruptEvent(dir, 9_400);
    await expectRefused(dir, ['log', 'show', '--from', '9990'], { seq: 9_400, ...bad });
  });
});
