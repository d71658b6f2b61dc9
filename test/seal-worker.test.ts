import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NewEvent } from '../events/envelope.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { SealChecker } from '../src/store/jsonl/seal-checker.js';
import { appendFileSync } from 'node:fs';
import { forgeEvents, linesOf } from './helpers/forge.js';
import { readOutcome, type ReadHow, type ReadOutcome } from './helpers/read-outcome.js';
import { makeTempDir, removeTempDirs, segmentPaths } from './helpers/workspace.js';

/**
 * Long reads check line seals on a worker thread (seal-checker.ts). Whatever the log holds, a read
 * with the worker must hand out exactly what a read checking every seal inline hands out, and end
 * with exactly the same error. (These stores keep no cache of checked blocks, seal-digests.ts: with
 * one, a second read of the same bytes would need no worker.)
 */
afterAll(removeTempDirs);
afterEach(() => vi.restoreAllMocks());

const WITH_WORKER = 0;
const INLINE = Number.POSITIVE_INFINITY;

function readAll(workspace: string, sealWorkerMinBytes: number, how: ReadHow): Promise<ReadOutcome> {
  return readOutcome(workspace, { sealWorkerMinBytes, sealDigests: false }, how);
}

/** A checker was started, and the worker vouched for every line it covered (none was checked from the file here). */
function expectWorkerDidTheChecking(start: { mock: { results: { type: string; value: unknown }[] } }): void {
  const checkers = start.mock.results.map((r) => r.value).filter((v): v is SealChecker => v instanceof SealChecker);
  expect(checkers).toHaveLength(1);
  expect(checkers[0]!.linesCheckedHere).toBe(0);
}

const note = (i: number): NewEvent => ({ type: 'note.recorded', stream: `note/s${i % 3}`, data: { text: `note number ${i} with some padding text` } });

/** A log of several segments, with multi-event batches, and an unfinished batch at its end. */
let base: string;
beforeAll(async () => {
  base = makeTempDir();
  const store = new JsonlEventStore(base, { segmentBytes: 6_000 });
  let n = 0;
  for (let i = 0; i < 60; i++) {
    const size = 1 + (i % 4);
    await store.append(Array.from({ length: size }, () => note(n++)));
  }
  const head = await store.head();
  await store.close();
  // The first two lines of a batch of three whose last line never came (a crashed writer).
  appendFileSync(segmentPaths(base).at(-1)!, linesOf(forgeEvents(head, 2, { text: 'unfinished', batchSize: 3 })));
});

function copyOfBase(): string {
  const workspace = makeTempDir();
  cpSync(join(base, '.baton'), join(workspace, '.baton'), { recursive: true });
  return workspace;
}

describe('seal checks on a worker thread', () => {
  it('the base log has several segments and reads the same either way', async () => {
    expect(segmentPaths(base).length).toBeGreaterThanOrEqual(4);
    const start = vi.spyOn(SealChecker, 'start');
    const withWorker = await readAll(base, WITH_WORKER, 'readChunks');
    expectWorkerDidTheChecking(start);
    expect(withWorker).toEqual(await readAll(base, INLINE, 'readChunks'));
    expect(withWorker.seqs).toHaveLength(150);
    expect(withWorker.error).toBeUndefined();
  });

  it('a short bounded read starts no worker, however much log follows; an unbounded read over as many bytes does', async () => {
    const store = new JsonlEventStore(base, { sealWorkerMinBytes: 8_000, sealDigests: false });
    try {
      const start = vi.spyOn(SealChecker, 'start');
      const point: number[] = [];
      for await (const e of store.read({ from: 3, to: 4 })) point.push(e.seq);
      expect(point).toEqual([3, 4]);
      expect(start).not.toHaveBeenCalled();
      let count = 0;
      for await (const _ of store.read({ from: 3 })) count++;
      expect(count).toBe(148);
      expect(start.mock.results.some((r) => r.type === 'return' && r.value instanceof SealChecker)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('a line whose text was edited (still valid JSON) is refused by the worker: the events before it are handed out, then LOG_CORRUPT names it', async () => {
    const workspace = copyOfBase();
    const segment = segmentPaths(workspace)[2]!;
    const bytes = readFileSync(segment);
    const at = bytes.indexOf('note number');
    bytes[at] = 'N'.charCodeAt(0);
    writeFileSync(segment, bytes);
    const start = vi.spyOn(SealChecker, 'start');
    const outcome = await readAll(workspace, WITH_WORKER, 'read');
    expectWorkerDidTheChecking(start);
    const lineStart = bytes.lastIndexOf(0x0a, at) + 1;
    const seq = Number(/"seq":(\d+)/.exec(bytes.toString('utf8', lineStart, lineStart + 40))![1]);
    expect(outcome.error).toMatchObject({
      code: 'LOG_CORRUPT',
      details: { seq, offset: lineStart, reason: 'hash does not match the event content (tampered)' },
    });
    expect(outcome.seqs).toHaveLength(seq - 1);
    expect(outcome).toEqual(await readAll(workspace, INLINE, 'read'));
  });

  it('when the worker is gone, the lines it had not vouched for are checked from the file', () => {
    const workspace = copyOfBase();
    const segment = segmentPaths(workspace)[1]!;
    const bytes = readFileSync(segment);
    const lines: { offset: number; length: number; hash: string }[] = [];
    for (let start = 0; start < bytes.length;) {
      const nl = bytes.indexOf(0x0a, start);
      const text = bytes.toString('utf8', start, nl);
      lines.push({ offset: start, length: nl + 1 - start, hash: (JSON.parse(text) as { hash: string }).hash });
      start = nl + 1;
    }
    // Edit the third line's text after its hash was read: its seal no longer holds.
    const third = lines[2]!;
    const at = bytes.indexOf('note number', third.offset);
    bytes[at] = 'X'.charCodeAt(0);
    writeFileSync(segment, bytes);
    const checker = SealChecker.start([segment], 0, 0)!;
    expect(checker).toBeInstanceOf(SealChecker);
    checker.close();
    const verdict = checker.settle(lines.map((line) => ({ ...line, path: segment, position: SealChecker.position(0, line.offset) })));
    expect(verdict).toEqual({ kind: 'broken', index: 2, problem: 'hash does not match the event content (tampered)' });
    expect(checker.linesCheckedHere).toBe(3);
  });

  it('property: any byte changes anywhere in the log read the same with the worker as inline (events, then the same error)', async () => {
    const sizes = segmentPaths(base).map((path) => readFileSync(path).length);
    const total = sizes.reduce((a, b) => a + b, 0);
    /** The hash field of a random line: its seal breaks and the next line's `prev` no longer matches. */
    const inHash = fc.record({
      segment: fc.nat({ max: sizes.length - 1 }),
      line: fc.nat({ max: 1_000 }),
      digit: fc.nat({ max: 63 }),
      field: fc.constant('hash'),
    });
    /** The batch_end of a random line, another digit: its seal breaks and it no longer agrees with its batch. */
    const inBatchEnd = fc.record({
      segment: fc.nat({ max: sizes.length - 1 }),
      line: fc.nat({ max: 1_000 }),
      digit: fc.constant(0),
      field: fc.constant('batch_end'),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.oneof(fc.integer({ min: 0, max: total - 1 }), inHash, inBatchEnd), fc.integer({ min: 1, max: 255 })), {
          minLength: 1,
          maxLength: 2,
        }),
        fc.constantFrom<'read' | 'readChunks' | 'readLines'>('read', 'readChunks', 'readLines'),
        async (changes, how) => {
          const workspace = copyOfBase();
          const paths = segmentPaths(workspace);
          const files = paths.map((path) => readFileSync(path));
          for (const [where, xor] of changes) {
            let segment: number;
            let at: number;
            if (typeof where === 'number') {
              segment = 0;
              at = where;
              while (at >= files[segment]!.length) at -= files[segment++]!.length;
            } else {
              segment = where.segment;
              const bytes = files[segment]!;
              const starts = [0];
              for (let nl = bytes.indexOf(0x0a); nl >= 0 && nl + 1 < bytes.length; nl = bytes.indexOf(0x0a, nl + 1)) starts.push(nl + 1);
              const withBatch =
                where.field === 'batch_end'
                  ? starts.filter((start) => bytes.toString('utf8', start, bytes.indexOf(0x0a, start)).includes('"batch_end":'))
                  : starts;
              if (withBatch.length === 0) continue;
              const lineStart = withBatch[where.line % withBatch.length]!;
              const key = where.field === 'hash' ? '"hash":"' : '"batch_end":';
              at = bytes.indexOf(key, lineStart) + key.length + where.digit;
              if (where.field === 'batch_end') {
                // Another digit: the line still parses, and its batch_end differs from its batch's.
                files[segment]![at] = 0x30 + ((files[segment]![at]! - 0x30 + (xor % 9) + 1) % 10);
                continue;
              }
            }
            files[segment]![at] = files[segment]![at]! ^ xor;
          }
          paths.forEach((path, i) => writeFileSync(path, files[i]!));
          const inline = await readAll(workspace, INLINE, how);
          const withWorker = await readAll(workspace, WITH_WORKER, how);
          expect(withWorker).toEqual(inline);
        },
      ),
      { numRuns: 60 },
    );
  });
});
