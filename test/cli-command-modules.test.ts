import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMAND_MODULES, loadCommand } from '../src/cli/command-modules.js';

/**
 * The commands' code loads on demand from one table, src/cli/command-modules.ts: the command
 * groups load through it, and the bundler makes each of its entries a file of the bin, named as
 * the table names it. A lazy import written anywhere else in the groups would be a second table.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('the registry of command modules', () => {
  it('holds every lazy import of the program and its command groups', () => {
    const files = ['src/cli/program.ts', ...readdirSync(join(root, 'src/cli/groups')).map((file) => `src/cli/groups/${file}`)];
    const lazy = files.filter((file) => /\bimport\s*\(/.test(readFileSync(join(root, file), 'utf8')));
    expect(lazy).toEqual([]);
  });

  it('loads each module it names, typed as that module', async () => {
    for (const [name, load] of Object.entries(COMMAND_MODULES)) {
      const loaded: object = await load();
      expect(Object.keys(loaded).length, name).toBeGreaterThan(0);
    }
    const { wuDone } = await loadCommand('wu-done');
    expect(typeof wuDone).toBe('function');
    expect(await loadCommand('wu-done')).toBe(await COMMAND_MODULES['wu-done']());
  }, 120_000);

  it('gives the built bin its command entry points: dist/bin/<name>.js for each', () => {
    const metafile = join(root, 'dist/bin-metafile.json');
    expect(existsSync(metafile), 'build first: npm run build').toBe(true);
    const outputs = (JSON.parse(readFileSync(metafile, 'utf8')) as { outputs: Record<string, { entryPoint?: string }> }).outputs;
    for (const name of Object.keys(COMMAND_MODULES)) {
      const output = `dist/bin/${name}.js`;
      expect(outputs[output]?.entryPoint, output).toMatch(/\.ts$/);
      expect(existsSync(join(root, output)), output).toBe(true);
    }
  });
});
