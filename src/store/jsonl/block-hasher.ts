/**
 * The digest that names a read block in the cache of seal-checked blocks (seal-digests.ts):
 * XXH3-128 of the block's bytes, hex.
 *
 * The digest only has to tell the same bytes from changed ones: the cache never vouches for more
 * than the seals themselves do (they are unkeyed SHA-256 hashes anyone who can rewrite the log can
 * recompute), so a hash built to resist forgery buys nothing there. What it must catch is accidental
 * change (an edit, a flipped bit, a torn write), where 128 bits leave a changed block about one
 * chance in 2^115 of matching one of the cache's 8,192 digests. SHA-256 of every block, on the
 * main thread of every long read, was a large share of a replay or a rebuild; XXH3 in WebAssembly
 * is several times faster (`npm run bench`: replay, wu-status).
 *
 * hash-wasm builds its hashers asynchronously, so a long read loads this first (jsonl-store.ts);
 * a process that never reads a long log never loads it. Where WebAssembly is unavailable (node
 * --jitless), there is no hasher and long reads check every seal, without the cache.
 */
export type BlockHasher = (bytes: Uint8Array) => string;

let loading: Promise<BlockHasher | undefined> | undefined;

export function loadBlockHasher(): Promise<BlockHasher | undefined> {
  loading ??= createHasher();
  return loading;
}

async function createHasher(): Promise<BlockHasher | undefined> {
  try {
    const { createXxh3BlockHasher } = await import('./xxh3-block-hasher.js');
    return await createXxh3BlockHasher();
  } catch {
    return undefined;
  }
}
