import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';

/**
 * The machine's limit for durable appends: the bare system calls Baton cannot avoid — one
 * `write()` of the lines on an O_APPEND descriptor, then one `fdatasync()` — with no lock, no
 * hashing, no validation. `linesPerWrite` > 1 is group commit.
 *
 * `cpuMsBefore` spins that much CPU before each write: what the same calls cost when they are not
 * issued back to back, as a store's own work (validate, seal, lock) separates them. On the virtual
 * disks this project runs on, an fdatasync issued right after the previous one returns much sooner
 * than one issued after a gap, so the back-to-back loop alone overstates what any store that does
 * work between syncs can reach. `syncMs` is the time spent in fdatasync.
 */
export function rawAppendLoop(path: string, line: Buffer, events: number, linesPerWrite = 1, cpuMsBefore = 0): { ms: number; events: number; syncMs: number } {
  const payload = linesPerWrite === 1 ? line : Buffer.concat(Array.from({ length: linesPerWrite }, () => line));
  const writes = Math.max(1, Math.round(events / linesPerWrite));
  const fd = openSync(path, 'a', 0o600);
  try {
    let syncMs = 0;
    const start = performance.now();
    for (let i = 0; i < writes; i++) {
      if (cpuMsBefore > 0) for (const busyUntil = performance.now() + cpuMsBefore; performance.now() < busyUntil;);
      let written = 0;
      while (written < payload.length) written += writeSync(fd, payload, written, payload.length - written);
      const syncStart = performance.now();
      fdatasyncSync(fd);
      syncMs += performance.now() - syncStart;
    }
    return { ms: performance.now() - start, events: writes * linesPerWrite, syncMs };
  } finally {
    closeSync(fd);
  }
}
