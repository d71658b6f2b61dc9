import { closeSync, fsyncSync, ftruncateSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { LogRecoveredData, LogRepairedData } from '../../../events/log.js';
import { LogCorruptError } from '../../errors.js';
import { ensureOwnedDir } from '../../artifacts/owned-paths.js';
import type { BadPosition } from '../contract.js';
import { catchUp } from './catch-up.js';
import { recordRecovery } from './commit-write.js';
import type { TailRecovery } from './jsonl-options.js';
import { DIR_MODE, FILE_MODE } from './layout.js';
import { NEWLINE } from './line-reader.js';
import { fsyncDirectory, type LogHandle } from './log-handle.js';
import type { Cursor, ScanEnd, Segment } from './segment-scan.js';
import { findTail } from './segment-seek.js';
import { describeTail, readUncommittedTail, TailKind, type UncommittedTail } from './uncommitted-tail.js';
import { storeUnavailable } from './write-failure.js';

/**
 * What lies after the committed end of the last segment (uncommitted-tail.ts), with the segment
 * and offset it starts at; undefined when nothing does.
 */
function uncommittedTail(log: LogHandle, tail: Cursor): { segment: Segment; offset: number; size: number; found: UncommittedTail | undefined } | undefined {
  const last = log.segments().at(-1);
  if (last === undefined) return undefined;
  const segment = tail.segment.name === '' ? last : tail.segment;
  const offset = segment.name === tail.segment.name ? tail.offset : 0;
  const size = statSync(segment.path).size;
  if (size - offset <= 0) return undefined;
  // The chain the tail must extend: known unless only torn bytes sit in a freshly rolled segment.
  const chains = tail.prevHash !== undefined && (tail.segment.name !== '' || tail.seq === segment.firstSeq);
  const found = chains ? readUncommittedTail(segment.path, { offset, seq: tail.seq, prevHash: tail.prevHash! }, size) : undefined;
  return { segment, offset, size, found };
}

/**
 * Crash recovery, under the lock, of the bytes after the committed end. A whole last event whose
 * newline is missing or damaged may have been acknowledged: its newline is restored in place and
 * recorded as `log.repaired`, the event kept. Anything else there (a torn line, or the lines of a
 * batch whose write was cut short) is copied to `quarantine/`, fsynced, then cut from the segment,
 * and recorded as a `log.recovered` event. Never silent, never parsed as an event unless whole.
 */
export function recover(log: LogHandle, end: ScanEnd): TailRecovery | undefined {
  const tail = log.tail!;
  const located = uncommittedTail(log, tail);
  if (located === undefined) return undefined;
  const { segment, offset, size, found } = located;
  if (found?.kind === TailKind.unterminatedEvent) return { kind: 'repaired', report: repairNewline(log, segment, found) };
  const bytes = size - offset;
  ensureOwnedDir(log.layout.workspace, log.layout.quarantine, DIR_MODE);
  // A recovery cut short after quarantining (before truncating) is redone by the next append:
  // with a fixed clock (BATON_NOW) that would pick the same name, so never reuse one.
  const baseName = `${segment.name.replace(/\.jsonl$/, '')}-at-${offset}-${log.settings.now().replace(/[:.]/g, '-')}`;
  let quarantineName: string;
  const source = openSync(segment.path, 'r+');
  try {
    const buffer = Buffer.alloc(bytes);
    readSync(source, buffer, 0, bytes, offset);
    quarantineName = quarantine(log, buffer, baseName, `${bytes} torn bytes at ${segment.name}:${offset}`);
    ftruncateSync(source, offset);
    fsyncSync(source);
  } finally {
    closeSync(source);
  }
  if (tail.segment.name === '') log.tail = { segment, offset: 0, seq: segment.firstSeq, prevHash: tail.prevHash };
  const report: LogRecoveredData = {
    reason: end.uncommittedLines > 0 ? 'incomplete_batch' : 'torn_tail',
    segment: segment.name,
    offset,
    bytes,
    quarantined_to: `quarantine/${quarantineName}`,
    lines_dropped: end.uncommittedLines,
  };
  recordRecovery(log, { type: 'log.recovered', stream: 'log/recovery', data: report });
  log.settings.onRecovered?.(report);
  return { kind: 'recovered', report };
}

/**
 * Copies the torn bytes to a new file of `quarantine/`, fsynced with its directory entry, before
 * anything is cut from the log. Returns the file's name.
 */
function quarantine(log: LogHandle, buffer: Buffer, baseName: string, what: string): string {
  const bytes = buffer.length;
  let quarantineName = `${baseName}.torn`;
  let out: number | undefined;
  for (let copy = 2; out === undefined; copy++) {
    try {
      out = openSync(join(log.layout.quarantine, quarantineName), 'wx', FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      quarantineName = `${baseName}-${copy}.torn`;
    }
  }
  try {
    let copied = 0;
    while (copied < bytes) copied += writeSync(out, buffer, copied, bytes - copied);
    fsyncSync(out);
  } catch (error) {
    // No quarantine file is left half written (or empty), and nothing is cut from the log.
    closeSync(out);
    out = undefined;
    rmSync(join(log.layout.quarantine, quarantineName), { force: true });
    throw storeUnavailable(
      error,
      `could not move ${what} to quarantine; the log is unchanged and reads still ignore them`,
      join(log.layout.quarantine, quarantineName),
    );
  } finally {
    if (out !== undefined) closeSync(out);
  }
  // The quarantine file's directory entry must be durable before the bytes are cut.
  fsyncDirectory(log.layout.quarantine);
  return quarantineName;
}

/**
 * Restore the newline of a whole last event (uncommitted-tail.ts), fsync, take the event (and its
 * batch) into the log as committed, and record `log.repaired` after it.
 */
function repairNewline(log: LogHandle, segment: Segment, found: Extract<UncommittedTail, { kind: typeof TailKind.unterminatedEvent }>): LogRepairedData {
  const fd = openSync(segment.path, 'r+');
  try {
    if (writeSync(fd, Buffer.from([NEWLINE]), 0, 1, found.repairOffset) !== 1) throw new Error('short write');
    fsyncSync(fd);
  } catch (error) {
    throw storeUnavailable(
      error,
      `could not restore the newline of seq ${found.seq} at ${segment.name}:${found.repairOffset}; the log is unchanged`,
      segment.path,
    );
  } finally {
    closeSync(fd);
  }
  // The repaired lines are committed now: catching up folds them like any other process's append.
  const end = catchUp(log);
  if (end.uncommittedBytes > 0 || log.tail!.seq !== found.seq + 1) {
    throw new LogCorruptError(`the newline of seq ${found.seq} was restored, yet the log does not end there (${segment.name}:${found.repairOffset})`, {
      seq: found.seq,
      offset: found.repairOffset,
      segment: segment.name,
      reason: 'repair did not complete the tail',
    });
  }
  const report: LogRepairedData = {
    reason: found.repair,
    segment: segment.name,
    seq: found.seq,
    offset: found.repairOffset,
    bytes_changed: 1,
    replaced: found.replaced,
  };
  recordRecovery(log, { type: 'log.repaired', stream: 'log/recovery', data: report });
  log.settings.onRepaired?.(report);
  return report;
}

/**
 * `baton log repair`: under the lock, what an append would do about the bytes after the committed
 * end, and nothing else: restore a whole last event's newline, or quarantine a torn write.
 */
export function repairTail(log: LogHandle): Promise<TailRecovery | undefined> {
  return log.serialized(async () => {
    log.ensureWorkspace();
    const { acquireProcessLock } = await log.loadWriter();
    const lock = await acquireProcessLock(log.lockName, { timeoutMs: log.settings.lockTimeoutMs });
    try {
      const end = catchUp(log);
      return end.uncommittedBytes > 0 ? recover(log, end) : undefined;
    } finally {
      await lock.release();
    }
  });
}

/**
 * Describe what lies after the committed end without changing it, for verify: a write in flight
 * is told from a real tail by looking again under the lock (a writer holds it while it writes).
 */
export async function tailFinding(log: LogHandle): Promise<BadPosition | undefined> {
  const look = (): BadPosition | undefined => {
    const { end } = findTail(log.segments());
    if (end.uncommittedBytes === 0) return undefined;
    const located = uncommittedTail(log, end.cursor);
    if (located === undefined) return undefined;
    const found: UncommittedTail = located.found ?? {
      kind: TailKind.torn,
      offset: located.offset,
      bytes: located.size - located.offset,
      lines: end.uncommittedLines,
    };
    return { seq: end.cursor.seq, offset: located.offset, segment: located.segment.name, reason: describeTail(found), tail: found.kind };
  };
  if (look() === undefined) return undefined;
  const { acquireProcessLock } = await log.loadWriter();
  let lock: Awaited<ReturnType<typeof acquireProcessLock>> | undefined;
  try {
    lock = await acquireProcessLock(log.lockName, { timeoutMs: log.settings.lockTimeoutMs });
  } catch {
    // A writer holding the lock that long: what is there now is the answer.
  }
  try {
    return look();
  } finally {
    await lock?.release();
  }
}
