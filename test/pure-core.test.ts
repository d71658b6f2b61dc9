import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * events/, machines/, deciders/ and projections/ are the pure core (architecture principle): no
 * I/O, no clock, and nothing from src/ (the layering runs one way). Moved here from the log-stats
 * test, which checked projections/ alone.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PURE = ['events', 'machines', 'deciders', 'projections'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the pure core', () => {
  const files = PURE.flatMap((folder) => sources(join(root, folder)));

  it('is every file of its four folders', () => {
    for (const folder of PURE)
      expect(
        files.some((f) => relative(root, f).startsWith(`${folder}/`)),
        folder,
      ).toBe(true);
    expect(files.map((f) => relative(root, f))).toEqual(
      expect.arrayContaining(['projections/log-stats.ts', 'projections/projection.ts', 'deciders/decision.ts', 'events/baton-event.ts']),
    );
  });

  it('imports nothing with I/O, nothing from src/, and never reads the clock or the environment', () => {
    for (const file of files) {
      const source = readFileSync(file, 'utf8');
      const name = relative(root, file);
      expect(source, name).not.toMatch(/from ['"](node:|fs|path|child_process|os|pg)['"/]/);
      expect(source, name).not.toMatch(/from ['"](\.\.\/)+src\//);
      expect(source, name).not.toMatch(/Date\.now\(|new Date\(\)|process\.|performance\.now|Math\.random\(/);
    }
  });

  it('names no CLI flag: a refusal names its input by its domain field, and each surface by its own name for it', () => {
    // The one exception: the last stopping point prints the exact resume command, a CLI command line.
    const COMMAND_LINES = new Set(['projections/tasks/last-stopping-point.ts']);
    for (const file of files) {
      const name = relative(root, file);
      if (COMMAND_LINES.has(name) || name.endsWith('.generated.ts')) continue;
      const code = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/(^|[^:])\/\/.*$/gm, '$1');
      expect(code.match(/['"`]--[a-z][a-z-]*/g) ?? [], name).toEqual([]);
    }
  });
});
