import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * R3: write `<file>.tmp.<pid>` next to the file, fsync it, rename it over the file, fsync the
 * folder. The temp file is removed on any failure, so no `*.tmp.*` is ever left behind. Files get
 * the ordinary permissions of the user's umask.
 */
export function writeFileAtomic(path: string, content: string | Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.tmp.${process.pid}`;
  try {
    const fd = openSync(temp, 'w');
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
  syncDirectory(dirname(path));
}

function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some file systems refuse fsync on a directory; the rename is still atomic.
  }
}

/** The file's bytes, or undefined when there is no file (a directory in its place reads as different). */
export function readIfFile(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** R2: replace the file only when its content changes, so its mtime is the time of the last change. */
export function writeIfChanged(path: string, content: string): boolean {
  const existing = readIfFile(path);
  if (existing !== undefined && existing.equals(Buffer.from(content, 'utf8'))) return false;
  writeFileAtomic(path, content);
  return true;
}
