import { closeSync, fsyncSync, lstatSync, openSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep, isAbsolute } from 'node:path';
import { BATON_DIR_NAME } from '../store/jsonl/layout.js';
import { invalidInput, type BatonError } from '../errors.js';

/**
 * A file the user names for Baton to write (`log export --out`). It is resolved through every
 * symlink first and refused when it lands inside the workspace's `.baton/` (an export onto a live
 * segment would truncate the log), names a folder, or has no parent folder: exit 2 naming the flag
 * and the path, nothing written.
 */
export function checkOutputPath(workspace: string, path: string, flag: string): string {
  const absolute = resolve(path);
  let target: string;
  try {
    target = realTarget(absolute);
  } catch (error) {
    throw pathError(error, flag, path);
  }
  const batonDir = realOrSelf(join(workspace, BATON_DIR_NAME));
  const rel = relative(batonDir, target);
  if (rel === '' || !(rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel))) {
    throw invalidInput(`"${path}" is inside the workspace's ${BATON_DIR_NAME}/ folder (${target}), which only Baton writes; choose a path outside it`, flag);
  }
  return target;
}

/** The real path the write would land on: the file's own when it exists, else its real parent's. */
function realTarget(absolute: string): string {
  let stats;
  try {
    stats = statSync(absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    // A dangling link (realpath fails on it): where it points is where the write would go.
    if (isLink(absolute)) return realTarget(resolve(dirname(absolute), readlinkSync(absolute)));
    const parent = dirname(absolute);
    const parentStats = statSync(parent);
    if (!parentStats.isDirectory()) throw Object.assign(new Error('parent is not a folder'), { code: 'ENOTDIR' });
    return join(realpathSync(parent), basename(absolute));
  }
  if (stats.isDirectory()) throw Object.assign(new Error('is a folder'), { code: 'EISDIR' });
  return realpathSync(absolute);
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}


function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * A file-system error on a user-given path, as exit 2 naming the flag and the path. `read`: the
 * path is a file Baton reads (`--events`, an import file), so a missing one is "no such file", not
 * a missing folder, and a refused one is not readable.
 */
export function pathError(error: unknown, flag: string, path: string, access: 'write' | 'read' = 'write'): BatonError {
  const code = (error as NodeJS.ErrnoException).code;
  const reading: Record<string, string> = {
    ENOENT: 'no such file',
    EACCES: 'is not readable (permission denied)',
    EPERM: 'is not readable (operation not permitted)',
  };
  const written: Record<string, string> = {
    ENOENT: 'its folder does not exist',
    ENOTDIR: 'a part of it is not a folder',
    EISDIR: 'is a folder, not a file',
    EACCES: 'is not writable (permission denied)',
    EPERM: 'is not writable (operation not permitted)',
    EROFS: 'is on a read-only file system',
    ENAMETOOLONG: 'is too long a name',
    ELOOP: 'has too many levels of symbolic links',
    ENOSPC: 'no space left on the device',
  };
  const what = access === 'read' ? { ...written, ...reading } : written;
  return invalidInput(`"${path}": ${what[code ?? ''] ?? (error as Error).message}`, flag);
}

/**
 * Write a user-named file by a temporary file beside it, renamed into place only when complete:
 * a failed write never truncates what was there.
 */
export class AtomicOutput {
  private readonly temp: string;
  private fd: number | undefined;

  constructor(private readonly target: string, private readonly flag: string, private readonly shown: string) {
    this.temp = join(dirname(target), `.${basename(target)}.baton-tmp-${process.pid}-${Date.now().toString(36)}`);
    try {
      this.fd = openSync(this.temp, 'wx', 0o600);
    } catch (error) {
      throw pathError(error, flag, shown);
    }
  }

  write(text: string): void {
    try {
      writeSync(this.fd!, text);
    } catch (error) {
      this.abort();
      throw pathError(error, this.flag, this.shown);
    }
  }

  commit(): void {
    try {
      fsyncSync(this.fd!);
      closeSync(this.fd!);
      this.fd = undefined;
      renameSync(this.temp, this.target);
    } catch (error) {
      this.abort();
      throw pathError(error, this.flag, this.shown);
    }
  }

  abort(): void {
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        // Already closed.
      }
      this.fd = undefined;
    }
    rmSync(this.temp, { force: true });
  }
}
