import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * The conformance suites ship as `baton-state/testing`, so a third party's store adapter runs the
 * very cases Baton's adapters do. They import vitest and fast-check, which only a test run has:
 * optional peer dependencies, reached from that entry alone, never from the library's own.
 */
const exec = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};
const TEST_ONLY = ['vitest', 'fast-check'];

/** The relative imports of a TypeScript source, as the source files they name. */
function localImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'/g)].map((m) => resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')));
}

/** Every package a source names in a static import. */
function packageImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'([^.'][^']*)'/g)].map((m) => m[1]!);
}

/** The files a static import walk from `entry` reaches. */
function staticClosure(entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    queue.push(...localImports(file));
  }
  return seen;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('baton-state/testing', () => {
  it('is an export of its own beside the library, and vitest and fast-check are optional peers, never dependencies', () => {
    expect(pkg.exports['.']).toEqual({ types: './dist/src/index.d.ts', import: './dist/src/index.js' });
    expect(pkg.exports['./testing']).toEqual({ types: './dist/src/conformance/index.d.ts', import: './dist/src/conformance/index.js' });
    for (const name of TEST_ONLY) {
      expect(pkg.dependencies[name], name).toBeUndefined();
      expect(pkg.peerDependencies?.[name], name).toBe(pkg.devDependencies[name]);
      expect(pkg.peerDependenciesMeta?.[name]?.optional, name).toBe(true);
    }
  });

  it('resolves by the package name to the built library and suites', async () => {
    const script = "console.log(import.meta.resolve('baton-state')); console.log(import.meta.resolve('baton-state/testing'));";
    const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script], { cwd: root });
    expect(stdout.trim().split('\n')).toEqual([
      pathToFileURL(join(root, 'dist/src/index.js')).href,
      pathToFileURL(join(root, 'dist/src/conformance/index.js')).href,
    ]);
  });

  it('is the only way in to vitest and fast-check: no library module imports them, nor reaches the suites', () => {
    const library = staticClosure(join(root, 'src/index.ts'));
    expect([...library].map((f) => relative(root, f)).filter((f) => f.startsWith('src/conformance/'))).toEqual([]);
    expect(library.size).toBeGreaterThan(50);
    const suites = join(root, 'src/conformance');
    const outside = ['src', 'events', 'machines', 'deciders', 'projections']
      .flatMap((folder) => sources(join(root, folder)))
      .filter((f) => !f.startsWith(suites + '/'));
    const offenders = outside.filter((f) => packageImports(f).some((name) => TEST_ONLY.includes(name))).map((f) => relative(root, f));
    expect(offenders).toEqual([]);
    // The suites themselves do import them: the walk above would see it.
    expect(packageImports(join(suites, 'store-conformance.ts'))).toContain('vitest');
    expect(sources(suites).some((f) => packageImports(f).includes('fast-check'))).toBe(true);
  });
});
