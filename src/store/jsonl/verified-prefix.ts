import { closeSync, fstatSync, openSync, readSync, renameSync, rmSync, statSync, writeFileSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { INVALID } from '../../../events/compiled.js';
import { GENESIS_HASH } from '../../../events/patterns.js';
import { readFileNoFollow } from '../../artifacts/owned-paths.js';
import { VerifiedPrefixSchema as CompiledVerifiedPrefix } from '../../validators.generated.js';
import { parseStoredLine } from '../stored-line.js';
import { FILE_MODE } from './layout.js';
import type { Cursor, Segment } from './segment-scan.js';
import type { VerifiedSegment } from './verified-prefix-schema.js';

/**
 * What lets a writer refuse to append to a log with a corrupt line anywhere in it, however long the
 * log, without reading the whole log on every append.
 *
 * A writer that starts (a CLI append, a fresh handle) checks every line of the log once, from the
 * first byte, before it appends: seq, prev, envelope and seal (segment-scan.ts). What it checked is
 * recorded in `.baton/cache/verified-prefix.json`: for each segment, from the first one on, the
 * file's identity (inode, size, mtime and ctime in nanoseconds) when it was checked. The next writer
 * trusts the leading segments whose files still have exactly that identity and checks from the
 * first one that changed: any write to a segment — an edit, a flipped byte, a truncation — moves its
 * ctime (which no user call can set back), so a changed file is checked again from its start. A
 * writer updates the record after its own write, so the next one normally checks nothing but what
 * others appended since.
 *
 * What this cannot see: a change that leaves the file's identity as it was — silent bit rot on the
 * disk, or an edit in the same clock tick as the record on a kernel without fine-grained file
 * timestamps (Linux ≥ 6.13 gives a changed file a fresh ctime once it has been stat'ed). Any read
 * that meets such a corruption drops the record (forgetVerifiedPrefix), so the next writer checks
 * the whole log again and refuses. The record is a cache: deleting it only costs one full check.
 */
const FILE = 'verified-prefix.json';

export interface FileIdentity {
  ino: string;
  size: string;
  mtime_ns: string;
  ctime_ns: string;
}

function identityOf(stats: BigIntStats): FileIdentity {
  return { ino: String(stats.ino), size: String(stats.size), mtime_ns: String(stats.mtimeNs), ctime_ns: String(stats.ctimeNs) };
}

export function statIdentity(path: string): FileIdentity | undefined {
  try {
    return identityOf(statSync(path, { bigint: true }));
  } catch {
    return undefined;
  }
}

export function fstatIdentity(fd: number): FileIdentity {
  return identityOf(fstatSync(fd, { bigint: true }));
}

export function sameIdentity(a: FileIdentity | undefined, b: FileIdentity | undefined): boolean {
  return a !== undefined && b !== undefined && a.ino === b.ino && a.size === b.size && a.mtime_ns === b.mtime_ns && a.ctime_ns === b.ctime_ns;
}

export function loadVerifiedPrefix(cacheDir: string): VerifiedSegment[] | undefined {
  try {
    const bytes = readFileNoFollow(join(cacheDir, FILE));
    if (bytes === undefined) return undefined;
    const parsed = CompiledVerifiedPrefix.parse(JSON.parse(bytes.toString('utf8')));
    return parsed === INVALID ? undefined : parsed.segments;
  } catch {
    // An unreadable record is no record: the writer checks the whole log.
    return undefined;
  }
}

export function saveVerifiedPrefix(cacheDir: string, segments: readonly VerifiedSegment[]): void {
  const path = join(cacheDir, FILE);
  const temp = `${path}.${process.pid}.${Date.now().toString(36)}.tmp`;
  try {
    // O_EXCL: a link planted at the temp name is never followed; rename replaces, never follows.
    writeFileSync(temp, JSON.stringify({ version: 1, segments }), { mode: FILE_MODE, flag: 'wx' });
    renameSync(temp, path);
  } catch {
    // A record that cannot be written only costs the next writer a full check.
    rmSync(temp, { force: true });
  }
}

/** A read met a corrupt line: no writer may trust a record that vouches for it. */
export function forgetVerifiedPrefix(cacheDir: string): void {
  try {
    rmSync(join(cacheDir, FILE), { force: true });
  } catch {
    // A cache folder that cannot be changed: writers then still check what changed.
  }
}

/**
 * Where a starting writer must begin checking: after the leading segments whose files are exactly
 * as they were when checked (their entries are returned), else at the log's first byte. The event
 * just before that position is read back and must be the one the record names, or nothing is trusted.
 */
export function trustedStart(
  recorded: readonly VerifiedSegment[] | undefined,
  segments: readonly Segment[],
): { cursor: Cursor; trusted: VerifiedSegment[]; lastId: string | undefined } | undefined {
  const first = segments[0];
  if (first === undefined) return undefined;
  const fromStart = {
    cursor: { segment: first, offset: 0, seq: first.firstSeq, prevHash: first.firstSeq === 1 ? GENESIS_HASH : undefined },
    trusted: [],
    lastId: undefined,
  };
  const trusted: VerifiedSegment[] = [];
  for (let i = 0; recorded !== undefined && i < recorded.length && i < segments.length; i++) {
    const entry = recorded[i]!;
    if (segments[i]!.name !== entry.name || !sameIdentity(statIdentity(segments[i]!.path), entry)) break;
    trusted.push(entry);
  }
  const last = trusted.at(-1);
  if (last === undefined) return fromStart;
  const segment = segments[trusted.length - 1]!;
  const size = Number(last.size);
  let lastId: string | undefined;
  if (size > 0) {
    const event = lastEventBefore(segment.path, size);
    if (event === undefined || event.seq !== last.last_seq || event.hash !== last.last_hash) return fromStart;
    lastId = event.id;
  }
  return { cursor: { segment, offset: size, seq: last.last_seq + 1, prevHash: last.last_hash }, trusted, lastId };
}

/** The event on the line that ends exactly at `offset` (the segment's last, for its size). */
function lastEventBefore(path: string, offset: number): { seq: number; hash: string; id: string } | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    for (let window = 64 * 1024; ; window *= 4) {
      const length = Math.min(offset, window);
      const buffer = Buffer.allocUnsafe(length);
      if (readSync(fd, buffer, 0, length, offset - length) !== length || buffer[length - 1] !== 0x0a) return undefined;
      const start = buffer.lastIndexOf(0x0a, length - 2) + 1;
      if (start === 0 && length < offset) continue;
      const parsed = parseStoredLine(buffer.toString('utf8', start, length - 1));
      return typeof parsed === 'string' ? undefined : parsed;
    }
  } finally {
    closeSync(fd);
  }
}
