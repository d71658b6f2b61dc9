import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFileNoFollow } from '../../artifacts/owned-paths.js';
import { join } from 'node:path';
import type { BlockHasher } from './block-hasher.js';
import { DIR_MODE, FILE_MODE } from './layout.js';

/**
 * Blocks of lines already seal-checked, known by a digest of their bytes (XXH3-128, block-hasher.ts):
 * a cache that spares a long read the per-line checks for bytes it has checked before.
 *
 * A line's seal is a property of its bytes alone, so a block of whole lines whose every seal held
 * once holds again wherever those exact bytes are met; one digest of the block (a 1 MiB read
 * block) tells the bytes are the same. Per line, Node's one-shot hash is nearly all call
 * overhead: a replay of a long log spent a large share of its time there, or had a worker
 * thread compete with it for the machine. Blocks are the reader's own (line-reader.ts), which a
 * read from the same place cuts the same way every time, so every full replay of an unchanged log
 * after the first is vouched for block by block; only its growing tail is checked line by line.
 *
 * An edited line changes its block's digest, so it is checked line by line and refused as before.
 * The cache is as trustworthy as the seals themselves (anyone who can rewrite the cache can
 * recompute a seal); `log verify` never uses it. It is written like a snapshot (temp file and
 * rename, no fsync), merged with what other processes wrote meanwhile, and capped; a file that is
 * missing, unreadable or malformed is an empty cache.
 */
const FILE_NAME = 'seal-digests.json';
/** The file's format: 2 holds XXH3-128 digests (1 held SHA-256 ones, and is read as an empty cache). */
const VERSION = 2;
const DIGEST = /^[0-9a-f]{32}$/;
/** MAX_DIGESTS blocks of 1 MiB (GiBs of log); the oldest are dropped first. */
const MAX_DIGESTS = 8192;

let tempCounter = 0;

export class SealDigests {
  private readonly known: Set<string>;
  private readonly added: string[] = [];
  /** Blocks this instance vouched for (diagnostics; tests). */
  blocksVouched = 0;

  private constructor(
    private readonly cacheDir: string,
    known: readonly string[],
    private readonly hasher: BlockHasher,
  ) {
    this.known = new Set(known);
  }

  static load(cacheDir: string, hasher: BlockHasher): SealDigests {
    return new SealDigests(cacheDir, readDigests(join(cacheDir, FILE_NAME)), hasher);
  }

  get size(): number {
    return this.known.size;
  }

  /** The digest of a block of whole lines. */
  digest(bytes: Uint8Array): string {
    return this.hasher(bytes);
  }

  has(digest: string): boolean {
    const known = this.known.has(digest);
    if (known) this.blocksVouched += 1;
    return known;
  }

  /** Blocks whose every line's seal was just checked and held; kept by `save`. */
  add(digests: readonly string[]): void {
    for (const digest of digests) {
      if (this.known.has(digest)) continue;
      this.known.add(digest);
      this.added.push(digest);
    }
  }

  /**
   * Write the cache when blocks were added: what is on disk now (another process may have added
   * some), then ours, the newest MAX_DIGESTS kept. Failures are ignored: the next read is slower.
   */
  save(): void {
    if (this.added.length === 0) return;
    const path = join(this.cacheDir, FILE_NAME);
    const merged = new Set(readDigests(path));
    for (const digest of this.added) {
      merged.delete(digest);
      merged.add(digest);
    }
    this.added.length = 0;
    const kept = [...merged].slice(-MAX_DIGESTS);
    const temp = `${path}.${process.pid}.${++tempCounter}.tmp`;
    try {
      mkdirSync(this.cacheDir, { recursive: true, mode: DIR_MODE });
      writeFileSync(temp, JSON.stringify({ v: VERSION, digests: kept }), { mode: FILE_MODE, flag: 'wx' });
      renameSync(temp, path);
    } catch {
      try {
        rmSync(temp, { force: true });
      } catch {
        // A stray temp file in the cache is harmless.
      }
    }
  }
}

function readDigests(path: string): string[] {
  let parsed: unknown;
  try {
    // A link planted in place of the cache is no cache (it could vouch for another file's blocks).
    const bytes = readFileNoFollow(path);
    if (bytes === undefined) return [];
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    return [];
  }
  if (typeof parsed !== 'object' || parsed === null || (parsed as { v?: unknown }).v !== VERSION) return [];
  const digests = (parsed as { digests?: unknown }).digests;
  if (!Array.isArray(digests) || !digests.every((d): d is string => typeof d === 'string' && DIGEST.test(d))) return [];
  return digests;
}
