import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { assertNoLinkBelow, assertNotLink, ensureOwnedDir, readFileNoFollow } from './owned-paths.js';

/**
 * Who may read a file Baton writes. `.baton/` is Baton's own (folders 0700, files 0600: the log's
 * neighbours hold handoffs and stamps of private work). Agent Flow's `.claude/*.local.md` files
 * are the user's project files, read and edited by the plugin's scripts and editors, so they get
 * the ordinary permissions of the user's umask, like every other file in the checkout.
 */
export const FileAccess = { private: 'private', shared: 'shared', executable: 'executable' } as const;
export type FileAccess = (typeof FileAccess)[keyof typeof FileAccess];

const MODES: Record<FileAccess, { dir: number | undefined; file: number }> = {
  private: { dir: 0o700, file: 0o600 },
  shared: { dir: undefined, file: 0o666 },
  executable: { dir: undefined, file: 0o777 },
};

let tempCounter = 0;

/**
 * R3: write a fresh temp file next to the target (O_EXCL: never through a planted link), fsync it,
 * rename it over the target, fsync the folder. A symlink at the target is refused (SYMLINK_REFUSED). The
 * folders on the way must be real folders inside the workspace (owned-paths.ts). The temp file is
 * removed on any failure, so no `*.tmp.*` is ever left behind.
 */
export function writeFileAtomic(workspace: string, path: string, content: string | Buffer, access: FileAccess): void {
  const dir = dirname(path);
  const modes = MODES[access];
  ensureOwnedDir(workspace, dir, modes.dir);
  // The rename would replace a link planted at the file itself (not follow it), silently dropping
  // what the user linked: refused like a link on the way.
  assertNotLink(path);
  const temp = `${path}.tmp.${process.pid}.${++tempCounter}`;
  try {
    const fd = openSync(temp, 'wx', modes.file);
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
  syncDirectory(dir);
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

/**
 * The bytes of a file Baton owns inside the workspace, or undefined when there is none (a folder in
 * its place reads as none). A symlink anywhere on the way is refused, so no read is steered.
 */
export function readIfFile(workspace: string, path: string): Buffer | undefined {
  assertNoLinkBelow(workspace, dirname(path));
  return readFileNoFollow(path);
}

/** R2: replace the file only when its content changes, so its mtime is the time of the last change. */
export function writeIfChanged(workspace: string, path: string, content: string, access: FileAccess): boolean {
  const existing = readIfFile(workspace, path);
  if (existing !== undefined && existing.equals(Buffer.from(content, 'utf8'))) return false;
  writeFileAtomic(workspace, path, content, access);
  return true;
}
