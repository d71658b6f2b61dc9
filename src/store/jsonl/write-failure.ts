import { fdatasyncSync, ftruncateSync } from 'node:fs';
import { BatonError, ErrorCode } from '../../errors.js';
import type { Segment } from './segment-scan.js';

/** A file-system failure while writing the store, as STORE_UNAVAILABLE (exit 5) naming the path and saying what happened. */
export function storeUnavailable(error: unknown, what: string, file?: string): BatonError {
  const err = error as NodeJS.ErrnoException;
  // Errors on a descriptor (write, fsync) carry no path: the caller names the file.
  const path = err.path ?? file;
  const reason =
    err.code === 'ENOSPC'
      ? 'no space left on the device'
      : err.code === 'EROFS'
        ? 'read-only file system'
        : err.code === 'EDQUOT'
          ? 'disk quota exceeded'
          : err.message;
  return new BatonError(ErrorCode.STORE_UNAVAILABLE, `${reason}${path ? ` (${path})` : ''}: ${what}`, {
    ...(err.code ? { errno: err.code } : {}),
    ...(path ? { path } : {}),
  });
}

/**
 * A batch write that failed part-way (e.g. ENOSPC after some bytes): the bytes it did write are cut
 * off again under the lock, so no partial batch stays behind. When even that fails, the message says
 * where the partial batch is and what happens to it (never acknowledged, ignored by reads, moved to
 * quarantine by the next append).
 */
export function writeFailed(error: unknown, segment: Segment, fd: number, start: number, written: number, events: number): BatonError {
  const batch = `the batch of ${events} event${events === 1 ? '' : 's'} was not appended`;
  if (written === 0) return storeUnavailable(error, `${batch}; nothing was written`, segment.path);
  try {
    ftruncateSync(fd, start);
    fdatasyncSync(fd);
    return storeUnavailable(error, `${batch}; the ${written} bytes of it written before the failure were cut off again, the log is as it was`, segment.path);
  } catch {
    return storeUnavailable(
      error,
      `${batch}; ${written} bytes of it stay at ${segment.name}:${start}, unacknowledged: reads ignore them and the next append moves them to .baton/quarantine/`,
      segment.path,
    );
  }
}
