import { closeSync, constants, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { BatonError } from '../errors.js';
import { BATON_DIR_NAME } from '../store/jsonl/layout.js';
import { unusableStoreFolder } from '../store/unusable-store-folder.js';

/**
 * Baton writes inside the workspace only into folders it owns (`.baton/…`, `.claude/`), and never
 * through a symlink it did not create: a symlink planted at `.baton/artifacts` (or anywhere below
 * the workspace on the way to a file Baton owns) would make it write, or read, somewhere else.
 * Each folder on the path is looked at with `lstat` and created when missing; a symlink is refused
 * with SYMLINK_REFUSED (exit 3) naming the path, and so is a file where a folder should be, except
 * in the store (`.baton/…`), where a file in a folder's place, or a folder the file system will not
 * create, is STORE_UNAVAILABLE (exit 5, unusable-store-folder.ts). Final file
 * components are handled by the writers: temp files are created with O_EXCL (which never follows a
 * symlink) and renamed over the target (rename replaces a symlink, it does not follow it); reads
 * use O_NOFOLLOW.
 */
export const UNSAFE_PATH_CODE = 'SYMLINK_REFUSED';

export function unsafePath(path: string, what: string): BatonError {
  return new BatonError(
    UNSAFE_PATH_CODE,
    `refusing ${path}: ${what}; Baton never follows a link it did not create inside the workspace (remove it, or point --dir at the real folder)`,
    { path },
  );
}

/** The components of `target` below `workspace`; refuses a target outside it. */
function componentsBelow(workspace: string, target: string): string[] {
  const rel = relative(workspace, target);
  if (rel === '') return [];
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw unsafePath(target, 'it is outside the workspace');
  return rel.split(sep).filter((part) => part !== '');
}

/**
 * Make sure `dir` (inside `workspace`) exists as a real folder, every folder on the way too,
 * creating the missing ones with `mode`. Throws SYMLINK_REFUSED when any of them is a symlink or
 * not a folder (a store folder that is not one, or cannot be made: STORE_UNAVAILABLE). Returns
 * whether it created any.
 */
export function ensureOwnedDir(workspace: string, dir: string, mode?: number): boolean {
  let current = workspace;
  // The workspace itself is the caller's (a library user may name one that does not exist yet, as
  // before owned folders were checked): created with its parents, at the default mode.
  let created = mkdirSync(workspace, { recursive: true }) !== undefined;
  const parts = componentsBelow(workspace, dir);
  const inStore = parts[0] === BATON_DIR_NAME;
  for (const part of parts) {
    current = join(current, part);
    created = checkFolder(current, mode, inStore) || created;
  }
  return created;
}

function checkFolder(path: string, mode: number | undefined, inStore: boolean): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    let stats;
    try {
      stats = lstatSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw inStore ? unusableStoreFolder(path, error) : error;
      try {
        mkdirSync(path, mode === undefined ? undefined : { mode });
        return true;
      } catch (mkdirError) {
        // Another process made it between the lstat and the mkdir: look again.
        if ((mkdirError as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw inStore ? unusableStoreFolder(path, mkdirError) : mkdirError;
      }
    }
    if (stats.isSymbolicLink()) throw unsafePath(path, 'it is a symbolic link');
    if (!stats.isDirectory()) throw inStore ? unusableStoreFolder(path) : unsafePath(path, 'it is not a folder');
    return false;
  }
  return false;
}

/**
 * Refuse when any existing component of `path` below `workspace` is a symlink (nothing is
 * created). Missing components are fine: there is nothing there to steer a read or a write.
 */
export function assertNoLinkBelow(workspace: string, path: string): void {
  let current = workspace;
  for (const part of componentsBelow(workspace, path)) {
    current = join(current, part);
    let stats;
    try {
      stats = lstatSync(current);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      throw error;
    }
    if (stats.isSymbolicLink()) throw unsafePath(current, 'it is a symbolic link');
  }
}

/**
 * Read a file Baton owns without following a symlink at its last component: the bytes, or
 * undefined when there is no file (a folder in its place reads as no file). The folders on the way
 * are the caller's to check (ensureOwnedDir / assertNoLinkBelow).
 */
export function readFileNoFollow(path: string): Buffer | undefined {
  let fd: number;
  try {
    // O_NONBLOCK: a named pipe in a file's place opens at once (and reads as no file below) instead
    // of waiting for a writer; a regular file reads as ever.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (code === 'ELOOP') throw unsafePath(path, 'it is a symbolic link');
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return undefined;
    const buffer = Buffer.alloc(stats.size);
    let offset = 0;
    while (offset < buffer.length) {
      const read = readSync(fd, buffer, offset, buffer.length - offset, offset);
      if (read === 0) break;
      offset += read;
    }
    return offset === buffer.length ? buffer : buffer.subarray(0, offset);
  } finally {
    closeSync(fd);
  }
}

/**
 * Before a command writes several files, refuse (SYMLINK_REFUSED) when any of them, or a folder on
 * the way to it, is a link: a refusal then comes before the first write, so nothing is written.
 */
export function assertNoLinksAt(workspace: string, relativePaths: readonly string[]): void {
  for (const rel of relativePaths) {
    const path = join(workspace, rel);
    assertNoLinkBelow(workspace, dirname(path));
    assertNotLink(path);
  }
}

/** Refuse when `path` itself is a symlink (SYMLINK_REFUSED); a missing file is fine. */
export function assertNotLink(path: string): void {
  let stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return;
    throw error;
  }
  if (stats.isSymbolicLink()) throw unsafePath(path, 'it is a symbolic link');
}

/**
 * Append `text` to a file the user owns inside the workspace (`.gitignore`), creating it when
 * missing, never through a symlink: the folders on the way are lstat-checked, and the file is
 * opened with O_NOFOLLOW (a link at it is refused with SYMLINK_REFUSED, nothing written).
 */
export function appendFileNoFollow(workspace: string, path: string, text: string): void {
  assertNoLinkBelow(workspace, dirname(path));
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw unsafePath(path, 'it is a symbolic link');
    throw error;
  }
  try {
    const bytes = Buffer.from(text, 'utf8');
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
