import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadBlockHasher } from '../src/store/jsonl/block-hasher.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { SealChecker } from '../src/store/jsonl/seal-checker.js';
import { SealDigests } from '../src/store/jsonl/seal-digests.js';
import { readOutcome } from './helpers/read-outcome.js';
import { makeTempDir, removeTempDirs } from './helpers/workspace.js';

/**
 * The hasher of the seal-checked blocks' cache is WebAssembly (block-hasher.ts). Where it cannot
 * load (node --jitless has no WebAssembly), a long read checks every seal, as without the cache,
 * and hands out exactly the same events.
 */
vi.mock('hash-wasm', () => {
  throw new Error('WebAssembly is not available');
});

afterAll(removeTempDirs);

describe('long reads without the block hasher', () => {
  it('check every seal, write no cache, and read what a read without the cache reads', async () => {
    expect(await loadBlockHasher()).toBeUndefined();
    const workspace = makeTempDir();
    const store = new JsonlEventStore(workspace);
    for (let i = 0; i < 20; i++)
      await store.append(
        Array.from({ length: 50 }, (_, j) => ({ type: 'note.recorded', stream: 'note/s', data: { text: `note ${i}-${j} with some padding` } })),
      );
    await store.close();

    const load = vi.spyOn(SealDigests, 'load');
    const start = vi.spyOn(SealChecker, 'start');
    const long = await readOutcome(workspace, { sealWorkerMinBytes: 4_000, sealDigests: true }, 'readChunks');
    expect(long.seqs).toHaveLength(1_000);
    expect(long.error).toBeUndefined();
    expect(long).toEqual(await readOutcome(workspace, { sealWorkerMinBytes: Number.POSITIVE_INFINITY, sealDigests: false }, 'readChunks'));
    // The read was long (its seals went to a worker), yet no cache was loaded or written.
    expect(start).toHaveBeenCalledTimes(1);
    expect(load).not.toHaveBeenCalled();
    expect(existsSync(join(workspace, '.baton', 'cache', 'seal-digests.json'))).toBe(false);
  });
});
