import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { BatonError, ErrorCode } from '../errors.js';
import { fileKind } from '../input/file-kind.js';

/**
 * The store's own folders (`.baton/` and its `log/`, `cache/`, `quarantine/`, …) cannot be used: one
 * of them is a file, or the file system refuses to create it (a read-only or virtual one such as
 * /proc). That is STORE_UNAVAILABLE (exit 5) naming the path, like any store Baton cannot reach, and
 * never an unexpected failure: the workspace folder itself was fine (a `--dir` that is no folder is
 * refused before, exit 2, src/app/workspace-dir.ts), its store is what is unusable.
 */
export function unusableStoreFolder(path: string, error?: unknown): BatonError {
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  const blocker = notAFolderOnTheWay(path);
  const why =
    blocker !== undefined
      ? `${blocker.path === path ? 'it' : blocker.path} is ${blocker.kind}, not a folder (move it away, then run \`baton init\`)`
      : `${(error as NodeJS.ErrnoException | undefined)?.syscall === 'mkdir' ? 'the file system refuses to create it' : 'it cannot be read'} (${error instanceof Error ? error.message : 'not a folder'})`;
  const message = `the store folder ${path} cannot be used: ${why}; nothing was written`;
  return new BatonError(ErrorCode.STORE_UNAVAILABLE, message, { path: blocker?.path ?? path, ...(errno ? { errno } : {}) });
}

/**
 * The first existing component of `path` (from the root down) that is not a folder, if any. Links
 * are followed: a linked folder above the workspace (/tmp on some systems) is a folder; links inside
 * `.baton/` are refused before this is asked (owned-paths.ts).
 */
function notAFolderOnTheWay(path: string): { path: string; kind: string } | undefined {
  const chain: string[] = [];
  for (let p = path; ; p = dirname(p)) {
    chain.unshift(p);
    if (dirname(p) === p) break;
  }
  for (const p of chain) {
    let stats;
    try {
      stats = statSync(p);
    } catch {
      return undefined;
    }
    if (!stats.isDirectory()) return { path: p, kind: fileKind(stats) };
  }
  return undefined;
}
