import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';

/**
 * The raw group commit of raw-append.ts with `cpuMs` of busy CPU before each write: what the same
 * write() + fdatasync() cost when they are not issued back to back, as a store's own work (validate,
 * seal, lock) separates them. On the virtual disks this project runs on, an fdatasync issued right
 * after the previous one returns much sooner than one issued after a gap, so the back-to-back loop
 * alone overstates what any store that does work between syncs can reach.
 */
export function rawAppendWithCpuBetween(path: string, line: Buffer, events: number, linesPerWrite: number, cpuMs: number): { ms: number; events: number; syncMs: number } {
  const payload = Buffer.concat(Array.from({ length: linesPerWrite }, () => line));
  const writes = Math.max(1, Math.round(events / linesPerWrite));
  const fd = openSync(path, 'a', 0o600);
  try {
    let syncMs = 0;
    const start = performance.now();
    for (let i = 0; i < writes; i++) {
      const busyUntil = performance.now() + cpuMs;
      while (performance.now() < busyUntil);
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
