import picomatch from 'picomatch/posix.js';

/**
 * Matching dirty paths against a WU's code paths (work-units.md §6.3): a code path with a glob
 * character (`*`, `?`, `[`, `{`, `!`) is a glob matched by picomatch (the engine behind micromatch,
 * POSIX flavour: the paths are git's), dotfiles included; any other code path matches the path
 * itself or anything below it as a folder. picomatch is pure JavaScript, no I/O.
 */
const GLOB_CHARS = /[*?[{!]/;

/**
 * `dot`: dotfiles included (§6.3). `posix`: without it picomatch 4.0.7 reads `[!a]` as the class
 * {`!`, `a`} instead of "not a" (micromatch/picomatch#187); with it `[!a]` negates as in sh.
 */
const PICOMATCH_OPTIONS = { dot: true, posix: true } as const;

export function isGlob(pattern: string): boolean {
  return GLOB_CHARS.test(pattern);
}

const cache = new Map<string, (path: string) => boolean>();

export function compileCodePath(codePath: string): (path: string) => boolean {
  let matcher = cache.get(codePath);
  if (matcher !== undefined) return matcher;
  if (isGlob(codePath)) {
    matcher = picomatch(codePath, PICOMATCH_OPTIONS);
  } else {
    const folder = codePath.replace(/\/+$/, '');
    matcher = (p) => p === folder || p.startsWith(`${folder}/`);
  }
  cache.set(codePath, matcher);
  return matcher;
}

/** The dirty paths matching any of the code paths, sorted. */
export function overlappingPaths(dirty: readonly string[], codePaths: readonly string[]): string[] {
  if (codePaths.length === 0 || dirty.length === 0) return [];
  const matchers = codePaths.map(compileCodePath);
  return dirty.filter((p) => matchers.some((m) => m(p))).sort();
}
