import { closeSync, cpSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalog } from '../events/index.js';
import { LogVerificationEnvelope } from '../src/app/envelopes/foundation.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { segmentName } from '../src/store/jsonl/layout.js';
import { batonIn, inParallel, jsonLines } from './helpers/cli.js';
import { seededRandom } from './helpers/forge.js';
import { makeTempDir, removeTempDirs, segmentPaths, storedEvents } from './helpers/workspace.js';

/**
 * Flipping any single byte of any stored line makes `verify` fail and name that line.
 *
 * What is asserted, per byte position p of the segment (the log is one segment here), with the line
 * L (seq k) whose bytes — its newline included — contain p:
 * - p is not the log's final newline: verify is not ok, `first_bad.seq` = k and `first_bad.offset` =
 *   L's start (`checked` = k - 1; `head_seq` = k - 1, or the seq before L's batch when L is inside a
 *   multi-event batch, since a batch counts only whole). This holds for L's own newline too: flipping it merges L with line k+1 into one line
 *   that is not valid JSON (or, flipped to a line-break, still not L's canonical bytes), and that
 *   merged line starts where L starts and is checked where L would be — so the bad line is L, not
 *   the next one.
 * - p is the log's final newline: the last line is then a whole event (it parses, its seal holds, it
 *   chains) whose newline was damaged. It may have been acknowledged, so it is not a torn write:
 *   verify is not ok, names it at seq k and L's start as an `unterminated_event` tail (head_seq and
 *   checked k - 1, the committed part), and the next append restores the newline in place.
 */
afterAll(() => removeTempDirs());

const catalog = createCatalog();
let workspace = '';
let original = Buffer.alloc(0);
/** Start offset of each line; line i holds seq i + 1. */
let lineStarts: number[] = [];
let lineCount = 0;
/** head_seq verify reports when line i is bad: the seq before the batch holding it (the good prefix, whole batches only). */
let headBefore: number[] = [];

beforeAll(async () => {
  workspace = makeTempDir('baton-tamper-');
  expect((await batonIn(workspace, ['init'])).code).toBe(0);
  const line = (i: number, text: string, key?: string): string =>
    JSON.stringify({ type: 'note.recorded', stream: `note/s${i % 3}`, data: { text }, ...(key ? { idempotency_key: key } : {}) });
  // 15 single appends (some keyed, some with multi-byte characters), a batch of 4, one with --session.
  // The last single starts the session the final append acts as (a session acting on a write must be live).
  const startSession = JSON.stringify({
    type: 'session.started',
    stream: 'session/session_tamper7',
    data: { session_id: 'session_tamper7', display_name: 'Seven', ttl_seconds: 14400 },
  });
  const singles = Array.from({ length: 15 }, (_, i) =>
    i === 14 ? startSession : line(i, i % 4 === 0 ? `naïve café ✓ 日本 #${i}` : `note number ${i}`, i % 5 === 0 ? `key-${i}` : undefined),
  );
  const env = { BATON_NOW: '2026-02-01T09:30:00Z' };
  expect((await batonIn(workspace, ['log', 'append', '--events', '-'], { input: singles.join('\n') + '\n', env })).code).toBe(0);
  const batch = Array.from({ length: 4 }, (_, i) => line(i, `batch member ${i}`));
  expect(
    (await batonIn(workspace, ['log', 'append', '--events', '-', '--batch', '--idempotency-key', 'the-batch'], { input: batch.join('\n') + '\n', env })).code,
  ).toBe(0);
  expect(
    (
      await batonIn(
        workspace,
        ['--session', 'session_tamper7', 'log', 'append', '--type', 'note.recorded', '--stream', 'note/last', '--data', '{"text":"the end"}'],
        { env },
      )
    ).code,
  ).toBe(0);

  const segments = segmentPaths(workspace);
  expect(segments.map((p) => p.slice(-18))).toEqual([segmentName(1)]);
  original = readFileSync(segments[0]!);
  lineStarts = [];
  for (let at = 0; at < original.length; at = original.indexOf(0x0a, at) + 1) lineStarts.push(at);
  lineCount = lineStarts.length;
  expect(lineCount).toBe(20);
  const events = storedEvents(workspace);
  expect(events.filter((e) => e.batch_end === 19).map((e) => e.seq)).toEqual([16, 17, 18, 19]);
  headBefore = events.map((e) => (e.batch_end !== undefined ? e.batch_end - events.filter((o) => o.batch_end === e.batch_end).length : e.seq - 1));
  expect(original.toString('utf8')).toContain('日本');
});

/** The line (0-based) whose bytes, newline included, contain position p. */
function lineOf(p: number): number {
  let line = 0;
  while (line + 1 < lineStarts.length && lineStarts[line + 1]! <= p) line++;
  return line;
}

async function verifyWith(mutate: (fd: number) => void, restore: (fd: number) => void, fd: number): Promise<Awaited<ReturnType<JsonlEventStore['verify']>>> {
  mutate(fd);
  try {
    return await new JsonlEventStore(workspace, { catalog }).verify();
  } finally {
    restore(fd);
  }
}

function writeByte(fd: number, position: number, value: number): void {
  writeSync(fd, Buffer.of(value), 0, 1, position);
}

describe('tamper detection by log verify', () => {
  it('the untouched log verifies', async () => {
    expect(await new JsonlEventStore(workspace, { catalog }).verify()).toEqual({ ok: true, head_seq: 20, checked: 20, first_bad: null });
  });

  it('flipping any single byte of any line (XOR 0x01, then a random non-zero mask, at every position) fails verify at that line, the final newline as an unterminated event', async () => {
    const segment = segmentPaths(workspace)[0]!;
    const random = seededRandom(20260201);
    const fd = openSync(segment, 'r+');
    const misses: string[] = [];
    let flips = 0;
    try {
      for (const pass of ['xor-01', 'random-mask'] as const) {
        for (let p = 0; p < original.length; p++) {
          const mask = pass === 'xor-01' ? 0x01 : 1 + Math.floor(random() * 255);
          const flipped = original[p]! ^ mask;
          const report = await verifyWith(
            (f) => writeByte(f, p, flipped),
            (f) => writeByte(f, p, original[p]!),
            fd,
          );
          flips++;
          const line = lineOf(p);
          const isFinalNewline = p === original.length - 1;
          const expected = isFinalNewline
            ? {
                ok: false,
                head_seq: lineCount - 1,
                checked: lineCount - 1,
                first_bad: { seq: lineCount, offset: lineStarts[line]!, segment: segmentName(1), reason: report.first_bad?.reason, tail: 'unterminated_event' },
              }
            : {
                ok: false,
                head_seq: headBefore[line],
                checked: line,
                first_bad: { seq: line + 1, offset: lineStarts[line]!, segment: segmentName(1), reason: report.first_bad?.reason },
              };
          try {
            expect(report).toEqual(expected);
          } catch {
            misses.push(`${pass} byte ${p} (line seq ${line + 1}, 0x${original[p]!.toString(16)} → 0x${flipped.toString(16)}): ${JSON.stringify(report)}`);
          }
        }
      }
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(segment).equals(original)).toBe(true);
    expect(flips).toBe(2 * original.length);
    expect(misses.slice(0, 20)).toEqual([]);
  }, 120_000);

  it('through the CLI, a sample of 40 flips (the first byte of every line, newlines, random bytes) makes `baton log verify` exit 3 naming the line', async () => {
    const random = seededRandom(77);
    const positions = new Set<number>();
    for (let line = 0; line < lineCount; line++) {
      positions.add(lineStarts[line]!);
      // The newline of every third line, the batch's lines among them (seq 16, 17, 18: lines 15–17).
      if (line < lineCount - 1 && (line % 3 === 0 || (line >= 15 && line <= 17))) positions.add(lineStarts[line + 1]! - 1);
    }
    while (positions.size < 40) positions.add(Math.floor(random() * (original.length - 1)));
    const cases = [...positions].sort((a, b) => a - b);
    const failures = await inParallel(
      4,
      cases.map((p, i) => async () => {
        const copy = makeTempDir('baton-tamper-cli-');
        cpSync(join(workspace, '.baton'), join(copy, '.baton'), { recursive: true });
        const segment = segmentPaths(copy)[0]!;
        const fd = openSync(segment, 'r+');
        writeByte(fd, p, original[p]! ^ (1 + (i % 255)));
        closeSync(fd);
        const line = lineOf(p);
        const human = i % 5 === 0;
        const result = await batonIn(copy, human ? ['--human', 'log', 'verify'] : ['log', 'verify']);
        try {
          expect(result.code).toBe(3);
          if (human) {
            expect(result.stdout).toMatch(
              new RegExp(`^log NOT valid at seq ${line + 1} \\(${segmentName(1).replace('.', '\\.')}, byte ${lineStarts[line]}\\): `),
            );
          } else {
            const envelope = LogVerificationEnvelope.parse(jsonLines(result.stdout)[0]);
            expect(envelope).toMatchObject({
              ok: false,
              head_seq: headBefore[line],
              checked: line,
              first_bad: { seq: line + 1, offset: lineStarts[line], segment: segmentName(1) },
            });
          }
          return undefined;
        } catch (error) {
          return `byte ${p} (line seq ${line + 1}): ${(error as Error).message}\n${result.stdout}${result.stderr}`;
        }
      }),
    );
    expect(failures.filter((f) => f !== undefined)).toEqual([]);
  }, 120_000);

  it('through the CLI, a flipped final newline is an acknowledged event: verify exits 3 naming it, and the next append restores its newline, keeping seq 20', async () => {
    const copy = makeTempDir('baton-tamper-cli-');
    cpSync(join(workspace, '.baton'), join(copy, '.baton'), { recursive: true });
    const segment = segmentPaths(copy)[0]!;
    const last = storedEvents(copy)[19]!;
    const fd = openSync(segment, 'r+');
    writeByte(fd, original.length - 1, 0x20);
    closeSync(fd);
    const verify = await batonIn(copy, ['log', 'verify']);
    expect(verify.code).toBe(3);
    expect(jsonLines(verify.stdout)[0]).toMatchObject({
      ok: false,
      head_seq: 19,
      checked: 19,
      first_bad: { seq: 20, offset: lineStarts[19], tail: 'unterminated_event' },
    });
    const show = await batonIn(copy, ['log', 'show', '--from', '19']);
    expect(jsonLines(show.stdout).map((e) => (e as { seq: number }).seq)).toEqual([19]);
    const append = await batonIn(copy, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/x', '--data', '{"text":"after"}']);
    expect(append.code).toBe(0);
    expect(append.stderr).toContain('repaired the last event: seq 20');
    expect(storedEvents(copy)[19]).toEqual(last);
    const repaired = jsonLines((await batonIn(copy, ['log', 'show', '--type', 'log.repaired'])).stdout);
    expect(repaired).toMatchObject([{ seq: 21, data: { reason: 'newline_damaged', seq: 20, offset: original.length - 1, replaced: '20' } }]);
    expect(jsonLines((await batonIn(copy, ['log', 'verify'])).stdout)[0]).toMatchObject({ ok: true, head_seq: 22 });
  });
});
