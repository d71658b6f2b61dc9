import { readdirSync, readFileSync } from 'node:fs';
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
});
