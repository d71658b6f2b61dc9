import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';

/**
 * The machine's limit for durable appends: the bare system calls Baton cannot avoid — one
 * `write()` of the lines on an O_APPEND descriptor, then one `fdatasync()` — with no lock, no
 * hashing, no validation. `linesPerWrite` > 1 is group commit.
 */
export function rawAppendLoop(path: string, line: Buffer, events: number, linesPerWrite = 1): { ms: number; events: number } {
  const payload = linesPerWrite === 1 ? line : Buffer.concat(Array.from({ length: linesPerWrite }, () => line));
  const writes = Math.max(1, Math.round(events / linesPerWrite));
  const fd = openSync(path, 'a', 0o600);
  try {
    const start = performance.now();
    for (let i = 0; i < writes; i++) {
      let written = 0;
      while (written < payload.length) written += writeSync(fd, payload, written, payload.length - written);
      fdatasyncSync(fd);
    }
    return { ms: performance.now() - start, events: writes * linesPerWrite };
  } finally {
    closeSync(fd);
  }
}
