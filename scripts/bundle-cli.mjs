// Bundles the `baton` bin into dist/bin/ with code splitting: each command module named in the
// registry of lazily loaded commands (src/cli/command-modules.ts) is an entry point of its own,
// dist/bin/<name>.js, and the ~100 small files of zod, commander and friends become a few.
//
// Then the bin itself and the short commands (FLATTENED, by their registry names) are rebundled
// each into ONE file. Code splitting cuts shared code into a chunk per set of entry points that
// reach it, and with ~70 entry points (every command and lazy fallback) the bin alone loaded a
// dozen small chunks and `mem inbox` a few more; each file costs Node's ESM loader a fraction of a
// millisecond. A flattened file holds its entry's whole static closure except the SHARED modules,
// and every dynamic import (lazy commands and fallbacks, the write side, zod) points at the split
// build's own entry chunk for it.
//
// SHARED modules carry identity (an error class tested with instanceof, the validators' INVALID
// symbol, the one sink per standard stream): two copies of one would break it. They are bundled
// together into one file, dist/bin/shared-runtime.js, which every chunk and flattened file imports,
// so a short command loads three files: the bin, the shared runtime and its own.
//
// The metafile of the split build is written to dist/bin-metafile.json (which module is in which
// chunk; https://esbuild.github.io/analyze/ reads it).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { builtinModules, createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const nodeRequire = createRequire(import.meta.url);

const OUT_DIR = 'dist/bin';

/**
 * Modules that must be one instance in the process, whichever chunk uses them: BatonError and its
 * subclasses and Refusal are tested with instanceof, compiled validators return the runtime's
 * INVALID symbol, and stdio keeps one sink per descriptor (a switch to Node's stream holds for every
 * writer). They make one file, imported by every other.
 */
const SHARED = ['events/compiled.ts', 'src/errors.ts', 'deciders/refusal.ts', 'src/cli/stdio.ts'];
const SHARED_FILE = 'shared-runtime.js';

/**
 * The command modules the bin loads on demand, by registry name: the table the command groups load
 * from (src/cli/command-modules.ts, compiled by tsc before this script runs), each loader's import
 * specifier resolved to its source file.
 */
const COMMANDS = await commandEntryPoints();

/**
 * Short commands to bundle into one file each (see the budget in the architecture spec), by their
 * names in the registry, with the lazily imported modules to bundle in too (still evaluated only
 * when first imported) and the packages those may bring along.
 */
const FLATTENED = [
  // The bin: commander, the program and its command groups; every command's body is a lazy import.
  { entry: 'src/cli/bin.ts', inline: [], packages: ['commander'] },
  // `mem inbox` marks what it lists (the default): the write side comes in the same file.
  { command: 'mem-inbox', inline: ['src/store/jsonl/writer-modules.ts'], packages: ['ulid'] },
  // `orchestrate status` of a large initiative (≤ 3 × node -e 0): the fold, the views and the probes;
  // it may append observations (the write side) and rewrites stamps.
  // picomatch (here and in `status`): the work-unit views' code-path glob matcher, pure and dependency-free.
  // The WU YAML probe (`probes.wu_yaml_paths`) comes in the same file too: loaded lazily, it cost
  // the loader about ten small chunks; its YAML parser (import.ts) stays lazy, needed only for changed files.
  {
    command: 'orchestrate',
    inline: ['src/store/jsonl/writer-modules.ts', 'src/work-units/stamps.ts', 'src/work-units/yaml-probe.ts'],
    packages: ['ulid', 'picomatch'],
  },
  // `baton status` (≤ 3 × node -e 0 after 1,000,000 events): the tasks and work-unit folds; appends nothing.
  { command: 'status', inline: [], packages: ['picomatch'] },
  // `baton hook claude-code PostToolUse` runs after every tool call (≤ 2 × node -e 0 with nothing
  // new): the coordination fold; the write side for its receipts; the other events load lazily.
  { command: 'hook-claude-code', inline: ['src/store/jsonl/writer-modules.ts'], packages: ['ulid'] },
  // `baton hook claude-code PreToolUse` runs before every edit (≤ 2 × node -e 0): the work-unit fold
  // and the reservation rule (picomatch); it appends nothing.
  { command: 'hook-pre-tool-use', inline: [], packages: ['picomatch'] },
].map(({ command, ...spec }) => {
  if (command === undefined) return spec;
  if (!(command in COMMANDS)) throw new Error(`bundle-cli: the short command ${command} is not in src/cli/command-modules.ts`);
  return { entry: COMMANDS[command], ...spec };
});

/**
 * Resolves an import as esbuild would, then lets `decide` replace it (with an external path) or keep
 * it (undefined). The flag in pluginData keeps the inner resolve from coming back here.
 */
function redirectRelativeImports(name, decide) {
  return {
    name,
    setup(b) {
      b.onResolve({ filter: /^\./ }, async (args) => {
        if (args.pluginData?.redirecting) return undefined;
        const resolved = await b.resolve(args.path, {
          resolveDir: args.resolveDir,
          kind: args.kind,
          importer: args.importer,
          pluginData: { redirecting: true },
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        const source = relative(process.cwd(), resolved.path);
        if (SHARED.includes(source)) return { path: `./${SHARED_FILE}`, external: true };
        return decide(source, args.kind);
      });
    },
  };
}

/**
 * Node built-ins are loaded with require() (the banner's), not as ES modules. An ES import of a
 * built-in makes Node build its ES facade, which reads every export once: `node:fs` then loads
 * fs/promises with readline and the streams, `node:crypto` loads webcrypto and the ciphers — about
 * a dozen internal modules a short command never uses. A named import becomes a property read on
 * the required module, so nothing else changes. Commander's `child_process` (net, dgram, streams)
 * is only used to run executable subcommands, which baton has none of: it is required on first use.
 */
const requiredBuiltins = {
  name: 'baton-required-builtins',
  setup(b) {
    b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      const name = args.path.replace(/^node:/, '');
      if (!builtinModules.includes(name)) return undefined;
      if (args.kind === 'require-call' && !(name === 'child_process' && args.importer.includes('node_modules/commander/')))
        return { path: `node:${name}`, external: true };
      if (args.kind !== 'import-statement' && args.kind !== 'require-call') return undefined;
      return { path: `node:${name}`, namespace: args.kind === 'require-call' ? 'baton-lazy-builtin' : 'baton-required-builtin' };
    });
    // An ES module of the built-in's own data properties, read once from the required module: a
    // CommonJS shim instead (module.exports = require(…)) made esbuild copy every export of the
    // built-in into a namespace object for each bundled module importing it (__toESM), a
    // millisecond of every command's start. Accessors (fs.promises) are left out: reading one
    // would load what it stands for, and importing one by name is a build error here.
    b.onLoad({ filter: /.*/, namespace: 'baton-required-builtin' }, (args) => {
      const builtin = nodeRequire(args.path);
      const names = Object.keys(builtin).filter(
        (name) => /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default' && !Object.getOwnPropertyDescriptor(builtin, name)?.get,
      );
      const exports = names.map((name) => `export const ${name} = m.${name};`).join('\n');
      return { contents: `const m = require(${JSON.stringify(args.path)});\nexport default m;\n${exports}\n`, loader: 'js' };
    });
    b.onLoad({ filter: /.*/, namespace: 'baton-lazy-builtin' }, (args) => ({
      contents: `let m; module.exports = new Proxy({}, { get: (_, key) => (m ??= require(${JSON.stringify(args.path)}))[key] });`,
      loader: 'js',
    }));
  },
};

/**
 * The generated validator modules without their validators' texts: each `compileValidator(id,
 * params, body)` becomes `compileValidator(id, params)`, and the bin's compiler reads the text from
 * dist/bin/validators.codecache (src/cli/validator-code-cache.ts), written below from the same
 * modules. The texts were more than half of every bundle that holds the event catalog (what a
 * short command loads and compiles), while a command calls a handful of them.
 */
const VALIDATOR_CALL = /compileValidator\(("(?:[^"\\]|\\.)*"), ("(?:[^"\\]|\\.)*"), ("(?:[^"\\]|\\.)*")\)/g;
const validatorTextsOut = {
  name: 'baton-validator-texts-out',
  setup(b) {
    b.onLoad({ filter: /validators\.generated\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      let calls = 0;
      const contents = source.replace(VALIDATOR_CALL, (_, id, params) => {
        calls += 1;
        return `compileValidator(${id}, ${params})`;
      });
      // Every call, or the bundle would carry a text after all (or the generator's form changed).
      if (calls !== source.split('compileValidator(').length - 1)
        throw new Error(`bundle-cli: ${args.path}: ${calls} compileValidator calls rewritten, the module has another form`);
      return { contents, loader: 'ts' };
    });
  },
};

/**
 * hash-wasm as its ES module build: its package names the UMD build first (`main`), which holds
 * every algorithm and cannot be tree-shaken; the ES build lets the bundle keep XXH3-128 alone.
 */
const hashWasmEsm = {
  name: 'baton-hash-wasm-esm',
  setup(b) {
    const manifest = nodeRequire.resolve('hash-wasm/package.json');
    const esm = JSON.parse(readFileSync(manifest, 'utf8')).module;
    if (typeof esm !== 'string') throw new Error('bundle-cli: hash-wasm names no ES module build (`module`)');
    b.onResolve({ filter: /^hash-wasm$/ }, () => ({ path: join(dirname(manifest), esm) }));
  },
};

const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: false,
  logLevel: 'warning',
  // The PostgreSQL driver stays a runtime dependency loaded from node_modules (and only by the
  // postgres adapter's lazy chunk): bundling it would pull in its optional native binding.
  external: ['pg', 'pg-native'],
  plugins: [requiredBuiltins, validatorTextsOut, hashWasmEsm],
};

// CommonJS dependencies (commander) call require() for Node built-ins.
const requireBanner = "import { createRequire as __batonRequire } from 'node:module'; const require = __batonRequire(import.meta.url);";

// Chunk names carry a content hash: without a clean folder every build would leave the previous
// build's chunks behind (822 files had piled up in a working copy).
rmSync(OUT_DIR, { recursive: true, force: true });
await bundleSharedRuntime();
const split = await build({
  ...common,
  // Each registered command module is an entry point, dist/bin/<name>.js. Worker threads load
  // their module by URL, beside the chunk that starts them: each is an entry of its own here, emitted as dist/bin/NAME.js (worker-script.ts finds ./seal-worker.js, parallel-verify.ts ./verify-worker.js).
  entryPoints: { ...COMMANDS, baton: 'src/cli/bin.ts', 'verify-worker': 'src/store/jsonl/verify-worker.ts', 'seal-worker': 'src/store/jsonl/seal-worker.ts' },
  outdir: OUT_DIR,
  splitting: true,
  metafile: true,
  banner: { js: requireBanner },
  plugins: [requiredBuiltins, validatorTextsOut, hashWasmEsm, redirectRelativeImports('baton-shared-runtime', () => undefined)],
});
writeFileSync('dist/bin-metafile.json', JSON.stringify(split.metafile));

for (const spec of FLATTENED) await flatten(spec, split.metafile);
await writeValidatorCodeCacheFile();

await bundleDashboardAssets();

/**
 * `baton serve`'s page: the client script and the style sheet bundled and minified for the browser,
 * the HTML and the icon copied, all into dist/serve-assets/ (src/serve/assets.ts serves exactly
 * these files). Nothing is fetched at run time: no CDN, no web font.
 */
async function bundleDashboardAssets() {
  const out = 'dist/serve-assets';
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  await build({
    entryPoints: ['src/serve/client/app.js'],
    outfile: `${out}/app.js`,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    logLevel: 'warning',
  });
  await build({ entryPoints: ['src/serve/client/app.css'], outfile: `${out}/app.css`, bundle: true, minify: true, logLevel: 'warning' });
  for (const file of ['index.html', 'favicon.svg']) copyFileSync(`src/serve/client/${file}`, `${out}/${file}`);
}

/** SHARED, each module re-exported whole, as dist/bin/shared-runtime.js. */
async function bundleSharedRuntime() {
  const result = await build({
    ...common,
    stdin: {
      contents: SHARED.map((source) => `export * from ${JSON.stringify(`./${source}`)};`).join('\n'),
      resolveDir: process.cwd(),
      sourcefile: 'shared-runtime.ts',
      loader: 'ts',
    },
    outfile: join(OUT_DIR, SHARED_FILE),
    banner: { js: requireBanner },
    metafile: true,
  });
  const packages = Object.keys(result.metafile.inputs).filter((input) => input.includes('node_modules/'));
  if (packages.length > 0) throw new Error(`bundle-cli: the shared runtime bundled packages (${packages.join(', ')}); it must stay small`);
}

/**
 * The registry's names and source files: each loader of src/cli/command-modules.ts is
 * `() => import('<specifier>')`, a specifier relative to src/cli/ naming a .js file compiled from a
 * .ts one. A name taken by another output of the bin, or a loader of another form, stops the build.
 */
async function commandEntryPoints() {
  const { COMMAND_MODULES } = await import(pathToFileURL(resolve('dist/src/cli/command-modules.js')).href);
  const entries = {};
  for (const [name, loader] of Object.entries(COMMAND_MODULES)) {
    const specifiers = [...String(loader).matchAll(/import\((["'])(\.{1,2}\/[^"']+)\.js\1\)/g)].map((m) => m[2]);
    if (specifiers.length !== 1)
      throw new Error(`bundle-cli: the loader of ${name} in src/cli/command-modules.ts is not \`() => import('./….js')\`: ${String(loader)}`);
    const source = relative(process.cwd(), resolve('src/cli', `${specifiers[0]}.ts`));
    if (!existsSync(source)) throw new Error(`bundle-cli: the loader of ${name} names ${source}, which does not exist`);
    if (['baton', 'verify-worker', 'seal-worker', SHARED_FILE.replace(/\.js$/, '')].includes(name) || name.startsWith('chunk-'))
      throw new Error(`bundle-cli: the command module name ${name} is taken by another file of dist/bin/`);
    entries[name] = source;
  }
  return entries;
}

async function flatten({ entry, inline, packages }, metafile) {
  const outputs = metafile.outputs;
  const entryOutput = (source) => Object.keys(outputs).find((key) => outputs[key].entryPoint === source);
  const target = entryOutput(entry);
  if (!target) throw new Error(`bundle-cli: ${entry} is no entry point of the split build`);
  const isBin = entry === 'src/cli/bin.ts';

  const dir = mkdtempSync(join(tmpdir(), 'baton-bundle-'));
  try {
    const result = await build({
      ...common,
      entryPoints: [entry],
      outfile: join(dir, 'out.js'),
      banner: { js: requireBanner },
      metafile: true,
      plugins: [
        requiredBuiltins,
        validatorTextsOut,
        hashWasmEsm,
        redirectRelativeImports('baton-flatten', (source, kind) => {
          if (kind !== 'dynamic-import' || inline.includes(source)) return undefined;
          const lazy = entryOutput(source);
          if (!lazy) throw new Error(`bundle-cli: ${entry} imports ${source} lazily, but the split build has no entry chunk for it`);
          return { path: `./${basename(lazy)}`, external: true };
        }),
      ],
    });
    const bundled = Object.keys(result.metafile.inputs).filter(
      (input) => input.includes('node_modules/') && !packages.some((p) => input.includes(`node_modules/${p}/`)),
    );
    if (bundled.length > 0) throw new Error(`bundle-cli: flattening ${entry} bundled packages (${bundled.join(', ')}); they belong in the split build`);
    const final = resolve(target);
    renameSync(join(dir, 'out.js'), final);
    // Every name it imports from the shared runtime must exist there: link it once (the bin by
    // running it: importing it would run the CLI with this script's arguments).
    const check = isBin
      ? spawnSync(process.execPath, [final, '--version'], { encoding: 'utf8' })
      : spawnSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(final).href)})`], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`bundle-cli: the flattened ${basename(final)} does not link: ${check.stderr.trim()}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * V8's code cache of every generated validator, beside the bin (src/cli/validator-code-cache.ts):
 * the validators' texts are read back from the generated modules, compiled once by this Node, and
 * their code written to dist/bin/validators.codecache, which the bin serves them from.
 */
async function writeValidatorCodeCacheFile() {
  const { readGeneratedValidators, writeValidatorCodeCache } = await import(pathToFileURL(resolve('dist/src/cli/validator-code-cache.js')).href);
  // Every generated validator module: scripts/generate-validators.ts names each validators.generated.ts.
  const generated = ['events', 'src'].flatMap((dir) =>
    readdirSync(dir, { recursive: true })
      .filter((path) => basename(path) === 'validators.generated.ts')
      .map((path) => join(dir, path)),
  );
  const validators = readGeneratedValidators(process.cwd(), generated);
  if (validators.length === 0) throw new Error('bundle-cli: no compileValidator call found in the generated validators');
  writeValidatorCodeCache(join(OUT_DIR, 'validators.codecache'), validators);
}
