import { existsSync, fstatSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredEvent } from '../../../events/envelope.js';
import { GENESIS_HASH } from '../../../events/patterns.js';
import { LogCorruptError } from '../../errors.js';
import type { StoreIndex } from '../store-index.js';
import { segmentName } from './layout.js';
import type { LogHandle } from './log-handle.js';
import { scanFrom, scanTailLines, type ScanEnd, type ScannedEvent, type Segment } from './segment-scan.js';
import { startCursor } from './segment-seek.js';
import { loadVerifiedPrefix, statIdentity, trustedStart, type FileIdentity } from './verified-prefix.js';

/**
 * Bring the tail (and the index, when loaded) up to what other processes committed. Returns what
 * lies beyond the committed end, which under the lock can only be a crashed writer's torn bytes.
 */
export function catchUp(log: LogHandle): ScanEnd {
  const atTail = catchUpAtTail(log);
  if (atTail) return atTail;
  const segments = log.segments();
  if (!log.tail || !segments.some((s) => s.name === log.tail!.segment.name)) {
    const end = checkWholeLog(log, segments);
    if (log.index && log.index.seq !== end.cursor.seq - 1) log.index = undefined;
    log.foldedSinceCache = log.index ? log.foldedSinceCache : 0;
    return end;
  }
  // Read what others appended through the writer's own descriptor: no open/close under the lock.
  const scan = scanFrom(segments, log.tail, log.openDescriptor);
  // An index exists only once a write or a stream query loaded the write side.
  const builder = log.index ? new log.writer!.IndexBuilder(log.index) : undefined;
  let step = scan.next();
  while (!step.done) {
    builder?.add(step.value.event);
    log.foldedSinceCache += builder ? 1 : 0;
    log.headHash = step.value.event.hash;
    log.headId = step.value.event.id;
    step = scan.next();
  }
  builder?.flush();
  log.tail = step.value.cursor;
  return step.value;
}

/**
 * Find the committed tail by checking every line of the log, from the first byte or from where
 * the verified-prefix record (verified-prefix.ts) says nothing changed since a writer checked it:
 * a corrupt line anywhere refuses the append (LOG_CORRUPT), however long the log. Sets the tail,
 * head and the segments checked.
 */
export function checkWholeLog(log: LogHandle, segments: readonly Segment[]): ScanEnd {
  const start = trustedStart(loadVerifiedPrefix(log.layout.cache), segments);
  if (start === undefined) {
    log.tail = { segment: { name: '', firstSeq: 1, path: '' }, offset: 0, seq: 1, prevHash: GENESIS_HASH };
    log.headHash = GENESIS_HASH;
    log.headId = undefined;
    log.verifiedSegments = [];
    return { cursor: { ...log.tail }, uncommittedBytes: 0, uncommittedLines: 0 };
  }
  // Each file's identity before its lines are read: a change made while they are read then shows.
  const identities = new Map<string, FileIdentity | undefined>();
  for (const segment of segments.slice(start.trusted.length)) identities.set(segment.name, statIdentity(segment.path));
  const lastOf = new Map<string, StoredEvent>();
  let last: StoredEvent | undefined;
  const scan = scanFrom(segments, start.cursor, log.openDescriptor);
  const next = (): IteratorResult<ScannedEvent, ScanEnd> => {
    try {
      return scan.next();
    } catch (error) {
      if (!(error instanceof LogCorruptError)) throw error;
      throw new LogCorruptError(
        `${error.message}; nothing is appended to a corrupt log (baton log verify says how to recover)`,
        error.details as ConstructorParameters<typeof LogCorruptError>[1],
      );
    }
  };
  let step = next();
  let segmentName = '';
  while (!step.done) {
    // The last event of each segment read: what a sealed segment's entry records.
    if (last !== undefined && step.value.segment.name !== segmentName) lastOf.set(segmentName, last);
    segmentName = step.value.segment.name;
    last = step.value.event;
    step = next();
  }
  const end = step.value;
  log.tail = end.cursor;
  log.headHash = last?.hash ?? end.cursor.prevHash ?? GENESIS_HASH;
  log.headId = last?.id ?? start.lastId;
  const entries = [...start.trusted];
  const endIndex = segments.findIndex((s) => s.name === end.cursor.segment.name);
  for (let i = start.trusted.length; i <= endIndex; i++) {
    const segment = segments[i]!;
    const identity = identities.get(segment.name);
    const final = i === endIndex ? { seq: end.cursor.seq - 1, hash: end.cursor.prevHash } : lastOf.get(segment.name);
    if (identity === undefined || final === undefined || final.hash === undefined) break;
    if (i === endIndex && (Number(identity.size) !== end.cursor.offset || end.uncommittedBytes > 0)) break;
    entries.push({ name: segment.name, ...identity, last_seq: final.seq, last_hash: final.hash });
  }
  log.verifiedSegments = entries;
  return end;
}

/**
 * The common cases of catchUp, without listing the folder: nothing was committed or torn since this
 * handle's last write, or others appended whole batches to the segment it writes (segment-scan.ts
 * scanTailLines). Its segment file is still linked (appends only grow it;
 * recovery only cuts bytes past the committed end), and no segment starts at the new tail's seq
 * (another process rolling over). An unchanged tail costs one fstat and one stat instead of a
 * readdir and a read on every single-event append; a few lines, one read and their
 * checks instead of the full scan under the lock. Anything else: undefined, full scan.
 */
function catchUpAtTail(log: LogHandle): ScanEnd | undefined {
  const tail = log.tail;
  const open = log.writeFd;
  if (tail === undefined || open === undefined || open.segment !== tail.segment.name || tail.prevHash === undefined) return undefined;
  const stat = fstatSync(open.fd);
  if (stat.nlink === 0) {
    // The file was removed or replaced under this handle: never read or write through it again.
    log.closeWriteFd();
    return undefined;
  }
  const appended = stat.size === tail.offset ? { events: [], cursor: tail } : scanTailLines(open.fd, tail, stat.size);
  if (appended === undefined || existsSync(join(log.layout.log, segmentName(appended.cursor.seq)))) return undefined;
  const last = appended.events.at(-1);
  if (last !== undefined) {
    const builder = log.index ? new log.writer!.IndexBuilder(log.index) : undefined;
    for (const event of appended.events) builder?.add(event);
    builder?.flush();
    if (builder) log.foldedSinceCache += appended.events.length;
    log.headHash = last.hash;
    log.headId = last.id;
    log.tail = appended.cursor;
  }
  return { cursor: { ...appended.cursor }, uncommittedBytes: 0, uncommittedLines: 0 };
}

/**
 * Load streams and idempotency keys up to the committed end: from the cache when it still matches
 * the log, else by a scan. The index always describes exactly the events before `tail`.
 */
export function ensureIndex(log: LogHandle): StoreIndex {
  if (log.index) return log.index;
  const { emptyIndex, IndexBuilder, loadIndexCache } = log.writer!;
  const segments = log.segments();
  // Streams are only trusted from a log checked line by line (a corrupt line refuses the append).
  if (log.tail === undefined) checkWholeLog(log, segments);
  const checked = log.tail!.seq;
  const loaded = loadIndexCache(log.layout.cache, segments);
  const cached = loaded !== undefined && loaded.cursor.seq <= checked ? loaded : undefined;
  const index = cached?.index ?? emptyIndex();
  const cursor = cached?.cursor ?? startCursor(segments);
  log.foldedSinceCache = 0;
  if (cursor) {
    const builder = new IndexBuilder(index);
    const scan = scanFrom(segments, cursor);
    let step = scan.next();
    while (!step.done) {
      builder.add(step.value.event);
      log.foldedSinceCache += 1;
      log.headId = step.value.event.id;
      step = scan.next();
    }
    builder.flush();
    log.tail = step.value.cursor;
    log.headHash = index.hash;
  }
  log.index = index;
  return index;
}
