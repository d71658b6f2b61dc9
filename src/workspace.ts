import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { invalidInput } from './errors.js';
import { unusableStoreFolder } from './store/unusable-store-folder.js';
import { workspaceLayout } from './store/jsonl/layout.js';

/**
 * Which directory is the workspace: `--dir`/`BATON_DIR` when given, else the main working tree of
 * the git repository around the current directory (what `git rev-parse --git-common-dir` names,
 * found by reading `.git` files, no git process), else the current directory.
 *
 * Every linked worktree of a repository resolves to the main working tree, so agents working in
 * `git worktree add …` folders share one `.baton/` with the root checkout.
 */
export function resolveWorkspace(explicit: string | undefined, cwd: string = process.cwd()): string {
  if (explicit !== undefined) {
    if (explicit.trim() === '') throw invalidInput('must not be empty', '--dir');
    return resolve(cwd, explicit);
  }
  return checkoutAround(resolve(cwd))?.main ?? resolve(cwd);
}

/** The git checkout holding `dir` (the nearest folder up with a `.git`): its top level and its main working tree; null outside any. */
export function checkoutAround(dir: string): { topLevel: string; main: string } | null {
  for (let at = dir; ; at = dirname(at)) {
    const dotGit = join(at, '.git');
    if (existsSync(dotGit)) return { topLevel: at, main: mainWorkingTree(at, dotGit) };
    if (dirname(at) === at) return null;
  }
}

/**
 * The main working tree of the checkout at `topLevel`, whose `.git` entry is `dotGit`.
 *
 * - `.git` is a folder: `topLevel` is a main working tree.
 * - `.git` is a file `gitdir: <path>` (git's "gitfile"): a linked worktree's points at
 *   `<main>/.git/worktrees/<name>`, whose `commondir` file names the shared repository folder
 *   (relative to the gitdir, usually `../..`); when that folder is a `.git`, its parent is the main
 *   working tree. A gitdir without `commondir` is its own repository (a submodule, a
 *   `--separate-git-dir` checkout): `topLevel` is its main working tree.
 * - Anything else (a bare repository's worktree, which has no main working tree; an unreadable or
 *   malformed gitfile): `topLevel` itself, as git's own top level would be.
 */
function mainWorkingTree(topLevel: string, dotGit: string): string {
  try {
    if (statSync(dotGit).isDirectory()) return topLevel;
    const match = /^gitdir: (.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
    if (match === null) return topLevel;
    const gitDir = resolveFrom(topLevel, match[1]!);
    const commonDirFile = join(gitDir, 'commondir');
    if (!existsSync(commonDirFile)) return topLevel;
    const commonDir = resolveFrom(gitDir, readFileSync(commonDirFile, 'utf8').trim());
    if (basename(commonDir) !== '.git' || !statSync(commonDir).isDirectory()) return topLevel;
    return dirname(commonDir);
  } catch {
    return topLevel;
  }
}

function resolveFrom(base: string, path: string): string {
  return isAbsolute(path) ? resolve(path) : resolve(base, path);
}

/**
 * The raw text of `.baton/config.yaml`, or undefined when the workspace has none. A `.baton` that
 * is a file is the store unusable (exit 5 naming it), not an unexpected failure.
 */
export function readConfigText(workspace: string): string | undefined {
  const path = workspaceLayout(workspace).config;
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ENOTDIR') throw unusableStoreFolder(dirname(path), error);
    throw error;
  }
}
