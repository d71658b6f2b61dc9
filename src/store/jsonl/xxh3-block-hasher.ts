import { createXXHash128 } from 'hash-wasm';
import type { BlockHasher } from './block-hasher.js';

/**
 * XXH3-128 (seed 0) of a block's bytes, hex, from hash-wasm's WebAssembly build. A module of its
 * own so that it is imported lazily (block-hasher.ts): the bin bundles it as a chunk that only a
 * long read loads.
 */
export async function createXxh3BlockHasher(): Promise<BlockHasher> {
  const hasher = await createXXHash128();
  return (bytes) => hasher.init().update(bytes).digest('hex');
}
