import { closeSync, openSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFileNoFollow } from '../../artifacts/owned-paths.js';
import { join } from 'node:path';
import { INVALID } from '../../../events/compiled.js';
import { IndexCacheSchema as CompiledIndexCache } from '../../validators.generated.js';
import type { IndexCache } from './index-cache-schema.js';
import type { StoreIndex } from '../store-index.js';
import type { Cursor, Segment } from './segment-scan.js';
import { FILE_MODE } from './layout.js';

/**
 * A cache of the store index (stream versions, idempotency keys) so a process that needs them does
 * not rescan the whole log. Trusted only when the line just before its position in the named
 * segment still carries the recorded seq and hash; otherwise ignored and rebuilt.
 */
const CACHE_FILE = 'store-index.json';

export function saveIndexCache(cacheDir: string, index: StoreIndex, cursor: Cursor): void {
  if (cursor.segment.name === '') return;
  const body = {
    version: 1,
    segment: cursor.segment.name,
    offset: cursor.offset,
    seq: index.seq,
    hash: index.hash,
    streams: [...index.streams],
    idempotency: [...index.idempotency],
  };
  const path = join(cacheDir, CACHE_FILE);
  const temp = `${path}.${process.pid}.${Date.now().toString(36)}.tmp`;
  try {
    // O_EXCL: a link planted at the temp name is never followed.
    writeFileSync(temp, JSON.stringify(body), { mode: FILE_MODE, flag: 'wx' });
    renameSync(temp, path);
  } catch {
    // A cache that cannot be written is only a slower next start.
    rmSync(temp, { force: true });
  }
}

export function loadIndexCache(cacheDir: string, segments: readonly Segment[]): { index: StoreIndex; cursor: Cursor } | undefined {
  let parsed: IndexCache;
  try {
    // A cache that does not match its schema is ignored, so the compiled check alone decides.
    const bytes = readFileNoFollow(join(cacheDir, CACHE_FILE));
    if (bytes === undefined) return undefined;
    const result = CompiledIndexCache.parse(JSON.parse(bytes.toString('utf8')));
    if (result === INVALID) return undefined;
    parsed = result;
  } catch {
    return undefined;
  }
  const segment = segments.find((s) => s.name === parsed.segment);
  if (!segment || parsed.seq < 1 || parsed.offset < 1) return undefined;
  if (lastLineBefore(segment.path, parsed.offset) !== `"seq":${parsed.seq},` + parsed.hash) return undefined;
  return {
    index: { seq: parsed.seq, hash: parsed.hash, streams: new Map(parsed.streams), idempotency: new Map(parsed.idempotency) },
    cursor: { segment, offset: parsed.offset, seq: parsed.seq + 1, prevHash: parsed.hash },
  };
}

/** The seq and hash of the line that ends exactly at `offset`, as `"seq":N,<hash>`. */
function lastLineBefore(path: string, offset: number): string | undefined {
  const fd = openSync(path, 'r');
  try {
    const length = Math.min(offset, 1 << 20);
    const buffer = Buffer.alloc(length);
    const got = readSync(fd, buffer, 0, length, offset - length);
    if (got !== length || buffer[length - 1] !== 0x0a) return undefined;
    const text = buffer.toString('utf8', 0, length - 1);
    const line = text.slice(text.lastIndexOf('\n') + 1);
    const event = JSON.parse(line) as { seq?: unknown; hash?: unknown };
    return `"seq":${String(event.seq)},${String(event.hash)}`;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
