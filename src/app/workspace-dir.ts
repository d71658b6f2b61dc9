import { lstatSync, mkdirSync, statSync } from 'node:fs';
import { invalidInput, type BatonError } from '../errors.js';
import { pathProblem } from '../input/path-problem.js';

/**
 * The folder `--dir` (or BATON_DIR) names, checked before anything is read or written in it: it
 * must be a folder (not a file, not `/dev/null`, not a dangling link, not below a file). Any
 * file-system error on it is exit 2 naming the flag and the path, never an unexpected failure.
 * `init` and `log import` may create it when only its last component is missing (its parent must
 * exist), so a fresh workspace for a restored log is one command.
 */
export function checkWorkspaceDir(path: string, shown: string, flag: string, create: boolean): void {
  let stats;
  try {
    stats = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw pathError(error, flag, shown);
    if (isLink(path)) throw invalidInput(`"${shown}": is a symbolic link to nothing (a dangling link)`, flag);
    if (!create) throw invalidInput(`"${shown}": no such folder (baton --dir ${JSON.stringify(shown)} init creates it)`, flag);
    try {
      mkdirSync(path);
    } catch (mkdirError) {
      if ((mkdirError as NodeJS.ErrnoException).code === 'EEXIST') return checkWorkspaceDir(path, shown, flag, false);
      throw pathError(mkdirError, flag, shown);
    }
    return;
  }
  if (!stats.isDirectory()) throw invalidInput(`"${shown}": is not a folder`, flag);
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** A file-system error on the folder, exit 2 naming the input and the path (as the CLI's output paths word it). */
function pathError(error: unknown, flag: string, shown: string): BatonError {
  return invalidInput(`"${shown}": ${pathProblem(error, 'write')}`, flag);
}
