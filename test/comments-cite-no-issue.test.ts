import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * A comment says why, not which ticket asked: an issue number means nothing to a reader of the code
 * (and the tracker may move). Test titles follow the same rule: they name the behaviour.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = ['src', 'events', 'machines', 'deciders', 'projections', 'scripts', 'test'];
const CITATIONS = [/\bissues? #?\d+/i, /\(#\d+[),:;]/, /#\d+'s\b/, /^\s*(\*|\/\/)\s*#\d+\b/m, /\bsince #\d+/];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.generated.ts') ? [path] : [];
  });
}

describe('comments', () => {
  it('cite no issue number', () => {
    const self = fileURLToPath(import.meta.url);
    const citing = FOLDERS.flatMap((folder) => sources(join(root, folder)))
      .filter((file) => file !== self)
      .flatMap((file) => {
        const text = readFileSync(file, 'utf8');
        return CITATIONS.filter((pattern) => pattern.test(text)).map((pattern) => `${relative(root, file)} matches ${pattern}`);
      });
    expect(citing).toEqual([]);
  });

  it('name only files that exist', () => {
    // A path in a comment is a pointer for the reader; after a move it must follow the file. Test
    // files are left out: their comments describe fixture paths inside generated workspaces.
    const path = /\b((?:src|events|machines|deciders|projections|test|bench|scripts)\/[\w./-]+\.(?:ts|mjs|js))\b/g;
    const stale = FOLDERS.filter((folder) => folder !== 'test')
      .flatMap((folder) => sources(join(root, folder)))
      .flatMap((file) => {
        const comments = readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => /^\s*(\/\/|\/?\*)/.test(line));
        return comments.flatMap((line) =>
          [...line.matchAll(path)]
            .map((m) => m[1]!)
            .filter((named) => ![named, named.replace(/\.js$/, '.ts')].some((candidate) => existsSync(join(root, candidate))))
            .map((named) => `${relative(root, file)} names ${named}`),
        );
      });
    expect(stale).toEqual([]);
  });
});
