import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { xxhash128 } from 'hash-wasm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NewEvent } from '../events/envelope.js';
import { sha256Hex } from '../src/store/hash.js';
import { loadBlockHasher } from '../src/store/jsonl/block-hasher.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { SealChecker } from '../src/store/jsonl/seal-checker.js';
import { SealDigests } from '../src/store/jsonl/seal-digests.js';
import { readOutcome, type ReadHow, type ReadOutcome } from './helpers/read-outcome.js';
import { makeTempDir, removeTempDirs, segmentPaths } from './helpers/workspace.js';

/**
 * Long reads remember the blocks of lines whose seals they checked (seal-digests.ts) and skip the
 * per-line checks when they meet the same bytes again. Whatever happens to the log afterwards, a
 * read through the cache must hand out exactly what a read checking every seal hands out, and end
 * with exactly the same error.
 */
afterAll(removeTempDirs);
afterEach(() => vi.restoreAllMocks());

/** Reads of more than this many bytes are long: they use the cache. */
const LONG = 4_000;
const NO_CACHE = { sealWorkerMinBytes: Number.POSITIVE_INFINITY, sealDigests: false };

function readAll(workspace: string, options: { sealWorkerMinBytes: number; sealDigests: boolean }, how: ReadHow): Promise<ReadOutcome> {
  return readOutcome(workspace, options, how);
}

const cached = (how: ReadHow, workspace: string) => readAll(workspace, { sealWorkerMinBytes: LONG, sealDigests: true }, how);
const cacheFile = (workspace: string) => join(workspace, '.baton', 'cache', 'seal-digests.json');

/** The cache instances the reads made, to see what they vouched for. */
function spyOnLoads(): () => SealDigests[] {
  const load = vi.spyOn(SealDigests, 'load');
  return () => load.mock.results.map((r) => r.value as SealDigests);
}

const note = (i: number): NewEvent => ({ type: 'note.recorded', stream: `note/s${i % 3}`, data: { text: `note number ${i} with some padding text` } });

let small: string;
let large: string;
beforeAll(async () => {
  // Several small segments (one read block each), with multi-event batches.
  small = makeTempDir();
  const store = new JsonlEventStore(small, { segmentBytes: 6_000 });
  let n = 0;
  for (let i = 0; i < 40; i++) await store.append(Array.from({ length: 1 + (i % 4) }, () => note(n++)));
  await store.close();
  // One segment of several 1 MiB read blocks.
  large = makeTempDir();
  const big = new JsonlEventStore(large);
  for (let i = 0; i < 12; i++) await big.append(Array.from({ length: 700 }, (_, j) => note(i * 700 + j)));
  await big.close();
});

function segmentOf(position: number, sizes: readonly number[]): number {
  let segment = 0;
  for (let at = position; at >= sizes[segment]!; segment++) at -= sizes[segment]!;
  return segment;
}

function copyOf(workspace: string): string {
  const copy = makeTempDir();
  cpSync(join(workspace, '.baton'), join(copy, '.baton'), { recursive: true });
  return copy;
}

describe('the cache of seal-checked blocks', () => {
  it('a first long read checks every line and records its blocks; the next one vouches for them and starts no worker', async () => {
    const workspace = copyOf(large);
    expect(existsSync(cacheFile(workspace))).toBe(false);
    const reference = await readAll(workspace, NO_CACHE, 'readChunks');
    expect(reference.seqs).toHaveLength(8_400);
    const loads = spyOnLoads();
    const first = await cached('readChunks', workspace);
    expect(first).toEqual(reference);
    expect(loads()[0]!.blocksVouched).toBe(0);
    const recorded = (JSON.parse(readFileSync(cacheFile(workspace), 'utf8')) as { digests: string[] }).digests;
    expect(recorded.length).toBeGreaterThanOrEqual(3);

    const start = vi.spyOn(SealChecker, 'start');
    const second = await cached('readChunks', workspace);
    expect(second).toEqual(reference);
    expect(loads()[1]!.blocksVouched).toBe(recorded.length);
    expect(start).not.toHaveBeenCalled();
  });

  it('a log that grew since its blocks were recorded is vouched for up to where it changed; a worker starts there', async () => {
    const workspace = copyOf(large);
    await cached('readChunks', workspace);
    const before = readFileSync(segmentPaths(workspace)[0]!).length;
    const store = new JsonlEventStore(workspace);
    for (let i = 0; i < 3; i++) await store.append(Array.from({ length: 700 }, (_, j) => note(100_000 + i * 700 + j)));
    await store.close();
    const loads = spyOnLoads();
    const start = vi.spyOn(SealChecker, 'start');
    const outcome = await cached('readChunks', workspace);
    expect(outcome).toEqual(await readAll(workspace, NO_CACHE, 'readChunks'));
    expect(outcome.seqs).toHaveLength(10_500);
    expect(loads()[0]!.blocksVouched).toBeGreaterThanOrEqual(2);
    // Started once, at the first block the cache did not know: within the old bytes' last block.
    expect(start).toHaveBeenCalledTimes(1);
    const offset = start.mock.calls[0]![1];
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThan(before);
    expect(before - offset).toBeLessThanOrEqual(1 << 20);
  });

  it('a worker started where a grown log changed vouches for its lines by their positions: a line it finds broken ends the read as inline', async () => {
    const workspace = makeTempDir();
    const store = new JsonlEventStore(workspace, { segmentBytes: 1 << 20 });
    let n = 0;
    const grow = async (events: number) => {
      for (let done = 0; done < events; done += 1000) await store.append(Array.from({ length: 1000 }, () => note(n++)));
    };
    await grow(9_000);
    await cached('readChunks', workspace);
    const sizesThen = segmentPaths(workspace).map((path) => readFileSync(path).length);
    await grow(19_000);
    await store.close();
    // A line well past the worker's head start (4 MiB after where it starts), in a new segment.
    const paths = segmentPaths(workspace);
    expect(paths.length).toBeGreaterThanOrEqual(sizesThen.length + 5);
    const firstChanged = paths.findIndex((path, i) => i >= sizesThen.length || readFileSync(path).length !== sizesThen[i]);
    const target = paths.at(-2)!;
    const bytes = readFileSync(target);
    const at = bytes.indexOf('note number', bytes.length >> 1);
    bytes[at] = 'N'.charCodeAt(0);
    writeFileSync(target, bytes);
    const start = vi.spyOn(SealChecker, 'start');
    const outcome = await cached('read', workspace);
    const checkers = start.mock.results.map((r) => r.value).filter((v): v is SealChecker => v instanceof SealChecker);
    expect(checkers).toHaveLength(1);
    expect(start.mock.calls[0]![0][0]).toBe(paths[firstChanged]);
    expect(checkers[0]!.linesCheckedHere).toBe(0);
    expect(outcome.error).toMatchObject({
      code: 'LOG_CORRUPT',
      details: { segment: target.split('/').at(-1), reason: 'hash does not match the event content (tampered)' },
    });
    expect(outcome).toEqual(await readAll(workspace, NO_CACHE, 'read'));
  });

  it('an edited line is refused through the cache: the blocks before it are vouched for, its own is checked line by line', async () => {
    const workspace = copyOf(large);
    await cached('read', workspace);
    const segment = segmentPaths(workspace)[0]!;
    const bytes = readFileSync(segment);
    const at = bytes.indexOf('note number 5000 ');
    bytes[at] = 'N'.charCodeAt(0);
    writeFileSync(segment, bytes);
    const loads = spyOnLoads();
    const outcome = await cached('read', workspace);
    const lineStart = bytes.lastIndexOf(0x0a, at) + 1;
    expect(outcome.error).toMatchObject({
      code: 'LOG_CORRUPT',
      details: { seq: 5001, offset: lineStart, reason: 'hash does not match the event content (tampered)' },
    });
    expect(outcome.seqs).toHaveLength(5000);
    expect(loads()[0]!.blocksVouched).toBeGreaterThanOrEqual(1);
    expect(outcome).toEqual(await readAll(workspace, NO_CACHE, 'read'));
    // verify never trusts the cache.
    const store = new JsonlEventStore(workspace);
    try {
      expect((await store.verify()).first_bad).toMatchObject({ seq: 5001, offset: lineStart });
    } finally {
      await store.close();
    }
  });

  it('a read that ends in an error records nothing', async () => {
    const workspace = copyOf(small);
    const segment = segmentPaths(workspace)[1]!;
    const bytes = readFileSync(segment);
    bytes[bytes.indexOf('note number')] = 'X'.charCodeAt(0);
    writeFileSync(segment, bytes);
    const outcome = await cached('readChunks', workspace);
    expect(outcome.error?.code).toBe('LOG_CORRUPT');
    expect(existsSync(cacheFile(workspace))).toBe(false);
  });

  it.each([
    ['cut short (not JSON)', (real: string[]) => JSON.stringify({ v: 2, digests: real }).slice(0, -3)],
    ['of another version', (real: string[]) => JSON.stringify({ v: 3, digests: real })],
    ['holding one digest that is not 32 hex digits', (real: string[]) => JSON.stringify({ v: 2, digests: [...real, 'ABC'] })],
    // The format before XXH3: the SHA-256 of the very same blocks.
    [
      'of version 1, SHA-256 digests of the same blocks',
      (_real: string[], workspace: string) => JSON.stringify({ v: 1, digests: segmentPaths(workspace).map((path) => sha256Hex(readFileSync(path))) }),
    ],
  ])('a cache file %s is an empty cache (even when it names the right blocks), and is replaced', async (_name, spoil) => {
    const workspace = copyOf(small);
    await cached('read', workspace);
    const real = (JSON.parse(readFileSync(cacheFile(workspace), 'utf8')) as { digests: string[] }).digests;
    expect(real).toHaveLength(segmentPaths(workspace).length);
    writeFileSync(cacheFile(workspace), spoil(real, workspace));
    const loads = spyOnLoads();
    expect(await cached('read', workspace)).toEqual(await readAll(workspace, NO_CACHE, 'read'));
    expect(loads()[0]!.blocksVouched).toBe(0);
    expect(JSON.parse(readFileSync(cacheFile(workspace), 'utf8'))).toEqual({ v: 2, digests: real });
  });

  it("a block is known by the XXH3-128 of its bytes, the reader's 1 MiB blocks cut at line ends", async () => {
    const hasher = await loadBlockHasher();
    // The reference vector of XXH3-128 (seed 0) for no bytes.
    expect(hasher!(new Uint8Array(0))).toBe('99aa06d3014798d86001c324468d497f');
    const workspace = copyOf(large);
    await cached('read', workspace);
    const recorded = (JSON.parse(readFileSync(cacheFile(workspace), 'utf8')) as { v: number; digests: string[] }).digests;
    // The blocks as the reader cuts them: 1 MiB, ending after the last whole line within it.
    const bytes = readFileSync(segmentPaths(workspace)[0]!);
    const blocks: string[] = [];
    for (let at = 0; at < bytes.length;) {
      const end = bytes.lastIndexOf(0x0a, Math.min(bytes.length, at + (1 << 20)) - 1) + 1;
      blocks.push(await xxhash128(bytes.subarray(at, end)));
      at = end;
    }
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    expect(recorded).toEqual(blocks);
  });

  it("processes saving at once keep each other's blocks, and the newest 8,192 are kept", async () => {
    const dir = makeTempDir();
    const hex = (i: number) => i.toString(16).padStart(32, '0');
    const hasher = (await loadBlockHasher())!;
    const a = SealDigests.load(dir, hasher);
    const b = SealDigests.load(dir, hasher);
    a.add([hex(1), hex(2)]);
    b.add([hex(3)]);
    a.save();
    b.save();
    const merged = SealDigests.load(dir, hasher);
    expect([hex(1), hex(2), hex(3)].map((d) => merged.has(d))).toEqual([true, true, true]);
    const many = SealDigests.load(dir, hasher);
    many.add(Array.from({ length: 8_200 }, (_, i) => hex(100 + i)));
    many.save();
    const capped = SealDigests.load(dir, hasher);
    expect(capped.size).toBe(8_192);
    expect(capped.has(hex(100 + 8_199))).toBe(true);
    expect(capped.has(hex(1))).toBe(false);
  });

  it('property: after a clean read filled the cache, any byte changes read the same through it as with every seal checked', async () => {
    const filled = copyOf(small);
    await cached('read', filled);
    expect(existsSync(cacheFile(filled))).toBe(true);
    const sizes = segmentPaths(filled).map((path) => readFileSync(path).length);
    const total = sizes.reduce((sum, size) => sum + size, 0);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: total - 1 }), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 2 }),
        fc.constantFrom<'read' | 'readChunks' | 'readLines'>('read', 'readChunks', 'readLines'),
        async (changes, how) => {
          const workspace = copyOf(filled);
          const paths = segmentPaths(workspace);
          const files = paths.map((path) => readFileSync(path));
          for (const [where, xor] of changes) {
            let segment = 0;
            let at = where;
            while (at >= files[segment]!.length) at -= files[segment++]!.length;
            files[segment]![at] = files[segment]![at]! ^ xor;
          }
          paths.forEach((path, i) => writeFileSync(path, files[i]!));
          const loads = spyOnLoads();
          const outcome = await cached(how, workspace);
          expect(outcome).toEqual(await readAll(workspace, NO_CACHE, how));
          // Each small segment is one read block: those before the first change were vouched for.
          const firstChanged = Math.min(...changes.map(([where]) => segmentOf(where, sizes)));
          expect(loads()[0]!.blocksVouched).toBeGreaterThanOrEqual(firstChanged);
          vi.restoreAllMocks();
        },
      ),
      { numRuns: 40 },
    );
  });
});
