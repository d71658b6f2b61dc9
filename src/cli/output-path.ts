import { closeSync, fsyncSync, linkSync, lstatSync, openSync, readdirSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep, isAbsolute } from 'node:path';
import { BATON_DIR_NAME, segmentFirstSeq } from '../store/jsonl/layout.js';
import { invalidInput, type BatonError } from '../errors.js';
import { pathProblem } from '../input/path-problem.js';

export { pathProblem };

/**
 * A file the user names for Baton to write (`log export --out`), checked before anything is
 * opened: exit 2 naming the flag and the path, nothing written, when
 * - any folder on the way, as given or after resolving every link, is a `.baton/` folder (any
 *   workspace's, not only this one's: an export onto another workspace's live segment would
 *   replace its log), or lies inside another Baton store's `log/`, `cache/` or `quarantine/`;
 * - the file exists and `force` is not set (an export never replaces a file unasked); even with
 *   `force`, a store's segment, index or snapshot is refused by the rule above;
 * - it names a folder, or has no parent folder.
 * Returns the real path to write.
 */
export function checkOutputPath(workspace: string, path: string, flag: string, options: { force?: boolean } = {}): string {
  const absolute = resolve(path);
  let target: string;
  try {
    target = realTarget(absolute);
  } catch (error) {
    throw pathError(error, flag, path);
  }
  const ownBaton = realOrSelf(join(workspace, BATON_DIR_NAME));
  for (const candidate of [absolute, target]) {
    if (candidate.split(sep).includes(BATON_DIR_NAME) || isInside(ownBaton, candidate)) {
      throw invalidInput(`"${path}" is inside a ${BATON_DIR_NAME}/ folder (${target}), which only Baton writes; choose a path outside it`, flag);
    }
  }
  const store = storeFolderAround(target);
  if (store !== undefined) {
    throw invalidInput(`"${path}" is inside a Baton store's ${store.part}/ folder (${store.root}), which only Baton writes; choose a path outside it`, flag);
  }
  if (!options.force && exists(absolute)) {
    throw invalidInput(`"${path}" already exists; an export never replaces a file unless --force is given`, flag);
  }
  return target;
}

function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || !(rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel));
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The folders of a JSONL store beside its log: a `.baton/` renamed or reached by a link still has them. */
const STORE_PARTS = ['log', 'cache', 'quarantine'] as const;

/**
 * The store around `target`, when one of its ancestors is a store root: a folder holding `log/`
 * with at least one segment file, and `cache/` or `quarantine/` beside it.
 */
function storeFolderAround(target: string): { root: string; part: string } | undefined {
  let child = target;
  for (let dir = dirname(target); dir !== child; child = dir, dir = dirname(dir)) {
    const part = basename(child);
    if (!(STORE_PARTS as readonly string[]).includes(part)) continue;
    if (isStoreRoot(dir)) return { root: dir, part };
  }
  return undefined;
}

function isStoreRoot(dir: string): boolean {
  try {
    if (!readdirSync(join(dir, 'log')).some((name) => segmentFirstSeq(name) !== undefined)) return false;
    return ['cache', 'quarantine'].some((part) => statSync(join(dir, part)).isDirectory());
  } catch {
    return false;
  }
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
  return invalidInput(`"${path}": ${pathProblem(error, access)}`, flag);
}

/**
 * Write a user-named file by a temporary file beside it, renamed into place only when complete:
 * a failed write never truncates what was there.
 */
export class AtomicOutput {
  private readonly temp: string;
  private fd: number | undefined;

  constructor(
    private readonly target: string,
    private readonly flag: string,
    private readonly shown: string,
    /** Replace an existing file (--force); else the commit refuses one that appeared since the check. */
    private readonly replace = false,
  ) {
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
      if (this.replace) renameSync(this.temp, this.target);
      else {
        // link() never replaces: a file created at the target since the check is kept, not overwritten.
        linkSync(this.temp, this.target);
        rmSync(this.temp, { force: true });
      }
    } catch (error) {
      this.abort();
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw invalidInput(`"${this.shown}" already exists; an export never replaces a file unless --force is given`, this.flag);
      }
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
