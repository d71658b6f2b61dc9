import { closeSync, fdatasyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredEvent } from '../../../events/envelope.js';
import { ConflictError, invalidInput } from '../../errors.js';
import type { ChainChecker } from '../chain-checker.js';
import type { Head } from '../contract.js';
import { catchUp } from './catch-up.js';
import { FILE_MODE, segmentName } from './layout.js';
import { fsyncDirectory, initJsonlWorkspace, type LogHandle } from './log-handle.js';
import type { Segment } from './segment-scan.js';
import { loadChainChecker } from './verify-log.js';

/** Events written to the import's temporary file at once. */
const IMPORT_CHUNK = 1000;

/**
 * Load an export into this (empty) store. The events are checked (schema, seq, chain, hash) while
 * they are written to a temporary file; only a fully verified, fsynced file is renamed into place
 * as the first segment, so a failed import commits nothing.
 */
export function importLog(log: LogHandle, events: AsyncIterable<StoredEvent>): Promise<Head> {
  return log.serialized(async () => {
    initJsonlWorkspace(log.layout.workspace);
    const { acquireProcessLock, serializeEvent } = await log.loadWriter();
    const lock = await acquireProcessLock(log.lockName, { timeoutMs: log.settings.lockTimeoutMs });
    const tempPath = join(log.layout.log, `.import-${process.pid}.tmp`);
    try {
      const end = catchUp(log);
      if (log.tail!.seq !== 1 || end.uncommittedBytes > 0) {
        throw new ConflictError(`the store is not empty (head seq ${log.tail!.seq - 1}); import needs an empty store`);
      }
      const checker = await loadChainChecker(log.settings.catalog);
      const { size, last } = await writeChecked(tempPath, events, checker, serializeEvent);
      if (last) commitImported(log, tempPath, size, last);
      else rmSync(tempPath, { force: true });
      log.index = undefined;
      return { seq: last?.seq ?? 0, hash: log.headHash };
    } catch (error) {
      rmSync(tempPath, { force: true });
      throw error;
    } finally {
      await lock.release();
    }
  });
}

/** Checks each event as it is written to `path`, then fsyncs it; the first bad event stops the import. */
async function writeChecked(
  path: string,
  events: AsyncIterable<StoredEvent>,
  checker: ChainChecker,
  serializeEvent: (event: StoredEvent) => string,
): Promise<{ size: number; last: StoredEvent | undefined }> {
  const fd = openSync(path, 'w', FILE_MODE);
  let size = 0;
  let last: StoredEvent | undefined;
  try {
    let chunk: string[] = [];
    const flush = (): void => {
      const bytes = Buffer.from(chunk.join(''), 'utf8');
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
      chunk = [];
    };
    for await (const event of events) {
      const line = serializeEvent(event);
      const result = checker.check(line, size);
      if (!result.ok) throw invalidInput(`event at seq ${result.bad.seq}: ${result.bad.reason}`, 'import');
      chunk.push(line + '\n');
      size += Buffer.byteLength(line) + 1;
      last = event;
      if (chunk.length >= IMPORT_CHUNK) flush();
    }
    flush();
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { size, last };
}

/** The checked file becomes the first segment, durably, and the handle's end moves to its last event. */
function commitImported(log: LogHandle, tempPath: string, size: number, last: StoredEvent): void {
  const segment: Segment = { name: segmentName(1), firstSeq: 1, path: join(log.layout.log, segmentName(1)) };
  renameSync(tempPath, segment.path);
  fsyncDirectory(log.layout.log);
  log.closeWriteFd();
  // Every line was checked on its way in.
  log.verifiedSegments = [];
  log.tail = { segment, offset: size, seq: last.seq + 1, prevHash: last.hash };
  log.headHash = last.hash;
  log.headId = last.id;
}
