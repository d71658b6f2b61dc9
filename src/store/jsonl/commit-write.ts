import { fdatasyncSync, writeSync } from 'node:fs';
import type { NewEvent, StoredEvent } from '../../../events/envelope.js';
import type { LogHandle } from './log-handle.js';
import { sealVerifiedSegment } from './verified-record.js';
import { writeFailed } from './write-failure.js';

/**
 * Write events as one buffer with one `write()`; the caller holds the lock and the tail is
 * current. Returns the descriptor to fdatasync (after the lock), or syncs now when `syncNow`.
 */
export function writeCommitted(log: LogHandle, events: readonly StoredEvent[], bytes: Buffer, syncNow = false): number {
  const tail = log.tail!;
  let segment = tail.segment;
  if (segment.name === '' || (tail.offset >= log.settings.segmentBytes && tail.seq > segment.firstSeq)) {
    // Events of the old segment must be durable before any event of the new one can be.
    if (segment.name !== '') {
      fdatasyncSync(log.fdFor(segment));
      sealVerifiedSegment(log, segment, tail);
    }
    segment = log.createSegment(tail.seq);
  }
  const fd = log.fdFor(segment);
  const start = segment.name === tail.segment.name ? tail.offset : 0;
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
  } catch (error) {
    throw writeFailed(error, segment, fd, start, written, events.length);
  }
  if (syncNow) fdatasyncSync(fd);
  const last = events.at(-1)!;
  const offset = segment.name === tail.segment.name ? tail.offset + bytes.length : bytes.length;
  log.tail = { segment, offset, seq: last.seq + 1, prevHash: last.hash };
  log.headHash = last.hash;
  log.headId = last.id;
  return fd;
}

/** What recovery did, as a fact of the log's own (actor `system`), written and synced at once, under the lock. */
export function recordRecovery(log: LogHandle, event: NewEvent): void {
  const { planAppend, recordWritten, validateBatchNow } = log.writer!;
  const plan = planAppend(validateBatchNow(log.settings.catalog, [event]), log.indexOrHead(), {
    now: log.settings.now,
    defaultActor: 'system',
    lastId: log.headId,
  });
  if (plan.kind === 'write') {
    writeCommitted(log, plan.events, plan.bytes, true);
    if (log.index) recordWritten(log.index, plan.events, '', undefined);
  }
}
