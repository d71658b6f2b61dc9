import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { readIfFile } from './atomic-write.js';

/**
 * Baton's own projection files under `.baton/` (bundles, stamps): folders 0700, files 0600, each
 * written atomically — a temporary file in the same folder, fsync, rename, fsync the folder.
 */
export function writePrivateFileAtomic(path: string, content: string | Buffer): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = `${path}.tmp.${process.pid}.${Math.random().toString(36).slice(2, 8)}`;
  try {
    const fd = openSync(temp, 'wx', 0o600);
    try {
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some file systems refuse fsync on a folder; the rename is still atomic.
  }
}

/** Rewrite the file only when it is missing or its bytes differ. Returns whether it wrote. */
export function restorePrivateFile(path: string, content: string): boolean {
  const existing = readIfFile(path);
  if (existing !== undefined && existing.equals(Buffer.from(content, 'utf8'))) return false;
  writePrivateFileAtomic(path, content);
  return true;
}
