import { fdatasyncSync } from 'node:fs';
import type { NewEvent, StoredEvent } from '../../../events/envelope.js';
import type { ValidatedBatch } from '../append-plan.js';
import type { AppendOptions, AppendResult } from '../contract.js';
import { catchUp, ensureIndex } from './catch-up.js';
import { writeCommitted } from './commit-write.js';
import type { LogHandle } from './log-handle.js';
import { recover } from './tail-recovery.js';
import { recordVerifiedPrefix } from './verified-record.js';

/** Reads committed events back, for a batch the idempotency key says was appended before. */
export type ReadBack = (from: number, to: number) => AsyncIterable<StoredEvent>;

export function appendEvents(log: LogHandle, events: readonly NewEvent[], options: AppendOptions, readBack: ReadBack): Promise<AppendResult> {
  const writer = log.writer;
  // The first write of a handle loads the write side; appends made meanwhile keep their order.
  if (writer === undefined) return log.loadWriter().then(() => appendEvents(log, events, options, readBack));
  // Validation needs no lock and rejects bad input before anything is touched. A valid batch
  // resolves at once, so batches enter the queue in the order append was called.
  return writer.validateBatch(log.settings.catalog, events, options).then((batch) => log.serialized(() => appendLocked(log, batch, readBack)));
}

async function appendLocked(log: LogHandle, batch: ValidatedBatch, readBack: ReadBack): Promise<AppendResult> {
  log.ensureWorkspace();
  const lock = await log.writer!.acquireProcessLock(log.lockName, { timeoutMs: log.settings.lockTimeoutMs });
  let result: AppendResult;
  let syncFd: number;
  try {
    const end = catchUp(log);
    if (end.uncommittedBytes > 0) recover(log, end);
    const needsIndex = batch.idempotencyKey !== undefined || batch.expected.size > 0;
    // Streams and idempotency keys are only loaded when the batch asks about them: a plain
    // append needs nothing but the head.
    const { planAppend, recordWritten } = log.writer!;
    const index = needsIndex ? ensureIndex(log) : log.indexOrHead();
    // The plan's bytes are written below, before anything seals again: no copy of them is needed.
    const plan = planAppend(batch, index, { now: log.settings.now, defaultActor: log.settings.actor, lastId: log.headId, borrowBytes: true });
    if (plan.kind === 'deduplicated') {
      const stored: StoredEvent[] = [];
      for await (const e of readBack(plan.first, plan.last)) stored.push(e);
      result = { events: stored, deduplicated: true };
      // The first append of these events may not have finished its fsync yet.
      syncFd = log.fdFor(log.tail!.segment);
    } else {
      syncFd = writeCommitted(log, plan.events, plan.bytes);
      // A handle's first write records what it checked at once, under the lock, where the file
      // is exactly what it checked and wrote: the next CLI append (a process of its own) then
      // finds the record matching and checks nothing. Later writes are recorded on close.
      if (!log.recordedOnce) {
        log.recordedOnce = true;
        recordVerifiedPrefix(log);
      }
      if (log.index) {
        recordWritten(log.index, plan.events, batch.digest, batch.idempotencyKey);
        log.foldedSinceCache += plan.events.length;
      }
      // The plan's objects are fresh and this store keeps none of them: no defensive copy needed.
      result = { events: plan.events, deduplicated: false };
    }
  } finally {
    await lock.release();
  }
  // Durability after the lock: the write's position in the file (and so seq and the chain) was
  // fixed under the lock; the fsync needs no exclusion. Concurrent appenders' fsyncs then share
  // journal commits instead of queueing behind each other. The append is reported done only after
  // its fsync, and an fdatasync flushes every earlier byte of the file too, so whatever is
  // reported done is durable together with everything before it (segment rolls fsync the old
  // segment first, under the lock). Readers may see an event a moment before it is durable.
  fdatasyncSync(syncFd);
  for (const sub of log.subscriptions) sub.poke();
  return result;
}
