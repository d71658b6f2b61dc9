import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { codePointLength, INVALID, validatorScript } from '../events/compiled.js';
import { codeCacheCompiler, readGeneratedValidators, writeValidatorCodeCache, type ValidatorText } from '../src/cli/validator-code-cache.js';
import { OUTPUTS } from '../scripts/generate-validators.js';
import { makeTempDir, removeTempDirs } from './helpers/workspace.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The generated validators of the event catalog, as the build reads them. */
const generatedValidators = (): ValidatorText[] => readGeneratedValidators(ROOT, ['events/validators.generated.ts']);

const NOTE = 'events/note.ts#NoteRecordedData';
const INPUTS: unknown[] = [{ text: 'hello' }, { text: '' }, { text: 5 }, { text: 'x', extra: 1 }, null, [], { text: 'x'.repeat(4001) }];

/** The note validator, from a compiler, run over INPUTS (INVALID as a string, to compare). */
function outcomes(make: (v: ValidatorText) => (...constants: unknown[]) => (input: unknown) => unknown, v: ValidatorText): unknown[] {
  const validate = make(v)(INVALID, codePointLength);
  return INPUTS.map((input) => {
    const out = validate(input);
    return out === INVALID ? 'INVALID' : out;
  });
}

/** Rewrites the file's header as another Node's (same length, so every span still holds). */
function asWrittenByAnotherNode(file: string): void {
  const bytes = readFileSync(file);
  const length = bytes.readUInt32LE(4);
  const header = JSON.parse(bytes.toString('utf8', 8, 8 + length)) as { node: string };
  const other = JSON.stringify({ ...header, node: 'v0.0.0' }).padEnd(length, ' ');
  writeFileSync(file, Buffer.concat([bytes.subarray(0, 8), Buffer.from(other, 'utf8'), bytes.subarray(8 + length)]));
}

describe('the validators code cache', () => {
  afterAll(() => removeTempDirs());
  const validators = generatedValidators();
  const note = validators.find((v) => v.id === NOTE)!;
  // The reference: the validator compiled from its text, as without any cache.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const reference = outcomes((v) => new Function(`return ${validatorScript(v.params, v.body)}`)() as never, note);

  it('serves every validator it was written with from V8 code, and each behaves as compiled from its text', () => {
    expect(validators.length).toBeGreaterThan(20);
    expect(note).toBeDefined();
    const file = join(makeTempDir('baton-code-cache-'), 'validators.codecache');
    const written = writeValidatorCodeCache(file, validators);
    expect(written.entries).toBe(new Set(validators.map((v) => v.id)).size);
    const compiler = codeCacheCompiler(file);
    expect(outcomes((v) => compiler.compile(v.id, v.params, v.body), note)).toEqual(reference);
    expect(reference.slice(0, 4)).toEqual([{ text: 'hello' }, 'INVALID', 'INVALID', 'INVALID']);
    for (const v of validators.slice(0, 10)) compiler.compile(v.id, v.params, v.body);
    expect(compiler.stats).toEqual({ cached: 11, compiled: 0 });
  });

  it("compiles from the text what it has no code for: another text under the same name, a missing file, another Node's cache", () => {
    const dir = makeTempDir('baton-code-cache-');
    const file = join(dir, 'validators.codecache');
    writeValidatorCodeCache(file, [note]);

    // Same id and length, another rule: the cache must not answer for it (V8 itself only checks the length).
    const changed = { ...note, body: note.body.replaceAll('> 4000', '> 4001') };
    expect(changed.body.length).toBe(note.body.length);
    const sameName = codeCacheCompiler(file);
    expect(outcomes((v) => sameName.compile(v.id, v.params, v.body), changed).at(-1)).toEqual({ text: 'x'.repeat(4001) });
    expect(reference.at(-1)).toEqual('INVALID');
    expect(sameName.stats).toEqual({ cached: 0, compiled: 1 });

    const missing = codeCacheCompiler(join(dir, 'nothing-here'));
    expect(outcomes((v) => missing.compile(v.id, v.params, v.body), note)).toEqual(reference);
    expect(missing.stats).toEqual({ cached: 0, compiled: 1 });

    // A cache written by another Node: its header says so, and it is not read.
    asWrittenByAnotherNode(file);
    const foreign = codeCacheCompiler(file);
    expect(outcomes((v) => foreign.compile(v.id, v.params, v.body), note)).toEqual(reference);
    expect(foreign.stats).toEqual({ cached: 0, compiled: 1 });

    writeFileSync(file, 'not a cache');
    const garbage = codeCacheCompiler(file);
    expect(outcomes((v) => garbage.compile(v.id, v.params, v.body), note)).toEqual(reference);
    expect(garbage.stats).toEqual({ cached: 0, compiled: 1 });
  });

  it("serves a validator called by id alone (as the bin's bundles call it) from the file's text, with its code when this Node wrote it", () => {
    const dir = makeTempDir('baton-code-cache-');
    const file = join(dir, 'validators.codecache');
    writeValidatorCodeCache(file, validators);
    const byId = codeCacheCompiler(file);
    expect(outcomes((v) => byId.compile(v.id, v.params, undefined), note)).toEqual(reference);
    expect(byId.stats).toEqual({ cached: 1, compiled: 0 });

    // Another Node's file: its code is not used, its text still is.
    asWrittenByAnotherNode(file);
    const foreign = codeCacheCompiler(file);
    expect(outcomes((v) => foreign.compile(v.id, v.params, undefined), note)).toEqual(reference);
    expect(foreign.stats).toEqual({ cached: 0, compiled: 1 });

    // Other constants than the file's (another build's bundle): the text is used, never the code made for other constants.
    writeValidatorCodeCache(file, validators);
    const otherParams = codeCacheCompiler(file);
    expect(() => otherParams.compile(note.id, `${note.params}, extra`, undefined)).not.toThrow();
    expect(otherParams.stats).toEqual({ cached: 0, compiled: 1 });
  });

  it('names the file when a validator called by id alone has no text there (no file, a file without it, not a validators file)', () => {
    const dir = makeTempDir('baton-code-cache-');
    const file = join(dir, 'validators.codecache');
    expect(() => codeCacheCompiler(file).compile(NOTE, note.params, undefined)).toThrow(`validator ${NOTE}: its text is not in ${file}`);
    writeValidatorCodeCache(
      file,
      validators.filter((v) => v.id !== NOTE),
    );
    expect(() => codeCacheCompiler(file).compile(NOTE, note.params, undefined)).toThrow(`validator ${NOTE}: its text is not in ${file}`);
    writeFileSync(file, 'not a validators file');
    expect(() => codeCacheCompiler(file).compile(NOTE, note.params, undefined)).toThrow(`validator ${NOTE}: its text is not in ${file}`);
    // A damaged entry is no entry: called by id alone it is named; called with its text it compiles.
    const header = Buffer.from(JSON.stringify({ node: process.version, entries: { [NOTE]: { params: note.params, text: 'here', code: [0, -1] } } }), 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length);
    writeFileSync(file, Buffer.concat([Buffer.from('BVC2', 'latin1'), length, header]));
    expect(() => codeCacheCompiler(file).compile(NOTE, note.params, undefined)).toThrow(`validator ${NOTE}: its text is not in ${file}`);
    const damaged = codeCacheCompiler(file);
    expect(outcomes((v) => damaged.compile(v.id, v.params, v.body), note)).toEqual(reference);
    expect(damaged.stats).toEqual({ cached: 0, compiled: 1 });
  });

  it("the bin's bundles carry no validator text: every call names its validator, and the file holds the text", () => {
    const bin = join(ROOT, 'dist/bin');
    const bundles = readdirSync(bin)
      .filter((name) => name.endsWith('.js'))
      .map((name) => readFileSync(join(bin, name), 'utf8'));
    const all = readGeneratedValidators(
      ROOT,
      OUTPUTS.map((output) => output.file),
    );
    expect(all.length).toBeGreaterThan(50);
    for (const v of all) {
      // esbuild prints the id and constants as they are, and a text in whatever quotes suit it.
      const call = `compileValidator(${JSON.stringify(v.id)}, ${JSON.stringify(v.params)}`;
      expect(
        bundles.some((code) => code.includes(`${call}, `)),
        `${v.id}'s text is in a bundle`,
      ).toBe(false);
    }
    // The catalog needs every event type's validator: each is in the bin, called by id.
    for (const v of validators)
      expect(
        bundles.some((code) => code.includes(`compileValidator(${JSON.stringify(v.id)}, ${JSON.stringify(v.params)})`)),
        `no bundle calls ${v.id} by id`,
      ).toBe(true);
    const compiler = codeCacheCompiler(join(bin, 'validators.codecache'));
    for (const v of all) expect(() => compiler.compile(v.id, v.params, undefined)).not.toThrow();
    expect(compiler.stats.compiled).toBe(0);
  });

  it("the build writes the bin's cache with every generated validator in it", () => {
    const compiler = codeCacheCompiler(join(ROOT, 'dist/bin/validators.codecache'));
    for (const v of readGeneratedValidators(
      ROOT,
      OUTPUTS.map((output) => output.file),
    ))
      compiler.compile(v.id, v.params, v.body);
    expect(compiler.stats.compiled).toBe(0);
    expect(compiler.stats.cached).toBeGreaterThan(50);
  });
});
