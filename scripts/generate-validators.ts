/**
 * Generates the compiled validators: standalone, zod-free modules compiled from the zod schemas, so
 * the read path (`baton mem inbox`, the coordination fold) validates without loading zod (~70 ms of
 * module loading, a short command's whole budget). zod stays the single source of truth:
 *
 *  - each schema is compiled by zod's own AOT compiler (`compileFn` of `zod/v4/core`, the engine
 *    behind `z.compile`), and the generated function is zod's code verbatim;
 *  - its constants are serialized: regexes and enum sets as literals, zod's helpers from
 *    events/compiled.ts, refinement predicates by reference (an export of a zod-free module) or
 *    inlined when their source closes over nothing but such exports; anything else is a build error;
 *  - callers treat INVALID as "ask the zod schema" (loaded on demand) for the error message.
 *
 * The files are build outputs, git-ignored: `npm run generate` (run by build and typecheck) writes
 * them. `npm run build` runs this first; test/compiled-validators.test.ts checks that the generated
 * files are current and that each validator agrees with its schema on random inputs.
 *
 *   node --import tsx scripts/generate-validators.ts          write the files
 *   node --import tsx scripts/generate-validators.ts --check  exit 1 when a file is out of date
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, posix, relative, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';
import { compileFn, util as zodUtil } from 'zod/v4/core';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface Target {
  /** The module (relative to the project root) that exports the zod schema. */
  module: string;
  /** Its export name; the compiled validator is exported under the same name. */
  name: string;
  /**
   * Emit `schema()`, a lazy import of the zod schema for callers that word errors themselves.
   * Off by default: every dynamic import is a bundle entry point, and entry points fragment the
   * CLI bundle into more chunks (more files for a short command to load). Event payloads fall back
   * through the catalog's lazy definitions loader instead (events/builtin-catalog.ts).
   */
  lazy?: boolean;
}

interface OutputSpec {
  file: string;
  /** What the file serves, for its header. */
  purpose: string;
  targets: Target[];
  /**
   * Carry the catalog entry (streams, internal flag, compiled data schema) of EVERY catalog type:
   * the types whose schema is none of `targets` are compiled too, found by identity among the
   * exports of the modules under events/. The catalog then validates any stored or new event
   * without zod; zod is loaded only to word what is wrong with an invalid one.
   */
  allEventTypes?: boolean;
  /** Emit the upcasters of every catalog type (they must be exports of runtime modules). */
  upcasters?: boolean;
}

/**
 * Zod-free modules the generated code may import from: refinement predicates are found here by
 * identity, and the free identifiers of inlined predicates by export name.
 */
const RUNTIME_MODULES = [
  'projections/work-units/settings.ts',
  'events/coordination/rules.ts',
  'events/coordination/vocabulary.ts',
  'events/coordination/signal-records.ts',
  'events/patterns.ts',
];

const SUPPORT_MODULE = 'events/compiled.ts';

export const OUTPUTS: readonly OutputSpec[] = [
  {
    file: 'events/validators.generated.ts',
    purpose: 'event payloads and the new-event envelope: the coordination and tasks folds, CompiledEventCatalog, append-plan',
    targets: [
      { module: 'events/envelope.ts', name: 'NewEventSchema' },
      { module: 'events/envelope.ts', name: 'StoredEventSchema' },
      { module: 'events/log.ts', name: 'LogRecoveredData' },
      { module: 'events/log.ts', name: 'LogRepairedData' },
      { module: 'events/note.ts', name: 'NoteRecordedData' },
      { module: 'events/coordination/session.ts', name: 'SessionStartedData' },
      { module: 'events/coordination/session.ts', name: 'SessionHeartbeatData' },
      { module: 'events/coordination/session.ts', name: 'SessionEndedData' },
      { module: 'events/coordination/signal.ts', name: 'SignalSentData' },
      { module: 'events/coordination/signal.ts', name: 'SignalSentStoredData' },
      { module: 'events/coordination/receipt.ts', name: 'ReceiptRecordedData' },
      { module: 'events/coordination/work-unit-facts.ts', name: 'WuPrepOverriddenData' },
      { module: 'events/work-units/definition.ts', name: 'InitiativeCreatedData' },
      { module: 'events/work-units/definition.ts', name: 'WuDefinedData' },
      { module: 'events/work-units/lifecycle.ts', name: 'WuClaimedData' },
      { module: 'events/tasks/task-events.ts', name: 'TaskCreatedData' },
      { module: 'events/tasks/task-events.ts', name: 'TaskTransitionedData' },
      { module: 'events/tasks/task-events.ts', name: 'TaskOwnershipAddedData' },
      { module: 'events/tasks/subagent-events.ts', name: 'SubagentStartedData' },
      { module: 'events/tasks/subagent-events.ts', name: 'SubagentFinishedData' },
    ],
    allEventTypes: true,
    upcasters: true,
  },
  {
    file: 'src/validators.generated.ts',
    purpose: "the CLI's read path: `mem inbox` input and envelope, config.yaml sections, the store index cache and verified prefix",
    targets: [
      { module: 'src/app/envelopes/coordination.ts', name: 'InboxEnvelope', lazy: true },
      { module: 'src/coordination/inbox-input.ts', name: 'InboxInput', lazy: true },
      { module: 'src/coordination/settings.ts', name: 'CoordinationConfigSchema' },
      { module: 'src/store/store-config.ts', name: 'ConfigFileSchema' },
      { module: 'src/store/store-config.ts', name: 'StoreConfigSchema' },
      { module: 'src/store/jsonl/index-cache-schema.ts', name: 'IndexCacheSchema' },
      { module: 'src/store/jsonl/verified-prefix-schema.ts', name: 'VerifiedPrefixSchema' },
    ],
  },
  {
    file: 'src/work-units/validators.generated.ts',
    purpose: '`orchestrate status | plan`: the work-unit sections of config.yaml and the two envelopes',
    targets: [
      { module: 'projections/work-units/settings-schema.ts', name: 'WorkUnitsConfigSchema' },
      { module: 'src/app/envelopes/work-units.ts', name: 'InitiativeStatusEnvelope', lazy: true },
      { module: 'src/app/envelopes/work-units.ts', name: 'InitiativePlanEnvelope', lazy: true },
    ],
  },
  {
    file: 'src/tasks/validators.generated.ts',
    purpose: '`baton status`: the `resume` section of config.yaml and the status envelope',
    targets: [
      { module: 'src/tasks/settings.ts', name: 'ResumeConfig' },
      { module: 'src/app/envelopes/tasks.ts', name: 'OrchestrationStatusEnvelope', lazy: true },
    ],
  },
];

// ---- loading ------------------------------------------------------------------------------------

async function load(module: string): Promise<Record<string, unknown>> {
  return (await import(pathToFileURL(resolve(ROOT, module)).href)) as Record<string, unknown>;
}

interface RuntimeExport {
  module: string;
  name: string;
}

/** Every export of the runtime modules: functions by identity, all by name. */
async function runtimeExports(): Promise<{ byValue: Map<unknown, RuntimeExport>; byName: Map<string, RuntimeExport> }> {
  const byValue = new Map<unknown, RuntimeExport>();
  const byName = new Map<string, RuntimeExport>();
  for (const module of RUNTIME_MODULES) {
    const ns = await load(module);
    for (const [name, value] of Object.entries(ns)) {
      if (byName.has(name)) throw new Error(`${name} is exported by both ${byName.get(name)!.module} and ${module}: runtime exports must have unique names`);
      byName.set(name, { module, name });
      if (typeof value === 'function' && !byValue.has(value)) byValue.set(value, { module, name });
    }
  }
  return { byValue, byName };
}

// ---- compiling one schema -----------------------------------------------------------------------

interface Compiled {
  /** The names the generated factory takes: INVALID, c0, c1, … */
  names: string[];
  values: unknown[];
  /** The factory body: `return (input) => { … }`. */
  body: string;
}

/**
 * Validators zod's compiler built for nested schemas (a record's key schema, …) while compiling a
 * target, by the function they are: a constant that is one of them is emitted as its own compiled
 * factory, recursively.
 */
const nestedCompiled = new Map<unknown, Compiled>();

/** zod's compileFn, with the constants it binds captured (it builds the function with `new Function`). */
function compileSchema(schema: unknown, label: string): Compiled {
  const RealFunction = globalThis.Function;
  let captured: Compiled | undefined;
  const spy = function (this: unknown, ...args: string[]) {
    const body = args[args.length - 1]!;
    const names = args.slice(0, -1);
    const factory = new RealFunction(...args) as (...values: unknown[]) => unknown;
    return (...values: unknown[]) => {
      captured = { names, values, body };
      const fn = factory(...values);
      nestedCompiled.set(fn, captured);
      return fn;
    };
  };
  (globalThis as { Function: unknown }).Function = spy;
  try {
    compileFn(schema as never);
  } catch (error) {
    throw new Error(`${label}: zod cannot compile it (${(error as Error).message})`, { cause: error });
  } finally {
    (globalThis as { Function: unknown }).Function = RealFunction;
  }
  if (!captured) throw new Error(`${label}: zod's compiler built no function (its internals changed?)`);
  checkShape(captured, label);
  return captured;
}

function checkShape(compiled: Compiled, label: string): void {
  if (compiled.names[0] !== 'INVALID' || !compiled.body.startsWith('return (input) => {')) {
    throw new Error(`${label}: unexpected compiled shape (zod's compiler changed?)`);
  }
}

/** `((INVALID, c0, …) => (input) => { … })(INVALID, …)`: a compiled validator as an expression. */
function compiledExpression(compiled: Compiled, label: string, emit: Emit, runtime: Awaited<ReturnType<typeof runtimeExports>>, indent: string): string {
  const args = compiled.values.slice(1).map((v, i) => serialize(v, `${label} constant ${compiled.names[i + 1]}`, emit, runtime));
  const body = compiled.body.replace(/^return /, '').replace(/\n/g, `\n${indent}`);
  return [
    `/* @__PURE__ */ ((${compiled.names.join(', ')}) =>`,
    `${indent}${body})(`,
    `${indent}${['INVALID', ...args].join(`,\n${indent}`)},`,
    `${indent.slice(2)})`,
  ].join('\n');
}

// ---- serializing constants ----------------------------------------------------------------------

interface Emit {
  support: Set<string>;
  runtime: Map<string, Set<string>>;
  /** Inline predicates awaiting their free-identifier check: [source, label]. */
  inlined: { source: string; label: string }[];
}

const SUPPORT_FUNCTIONS = new Map<unknown, string>([
  [zodUtil.codePointLength, 'codePointLength'],
  [zodUtil.isPlainObject, 'isPlainObject'],
  [zodUtil.shallowClone, 'shallowClone'],
]);

function isPrimitive(v: unknown): boolean {
  return v === null || ['string', 'number', 'boolean', 'undefined'].includes(typeof v);
}

function primitiveLiteral(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (typeof v === 'number' && !Number.isFinite(v)) throw new Error(`non-finite number ${v}`);
  return JSON.stringify(v);
}

function serialize(value: unknown, label: string, emit: Emit, runtime: Awaited<ReturnType<typeof runtimeExports>>): string {
  if (value instanceof RegExp) return `/* @__PURE__ */ new RegExp(${JSON.stringify(value.source)}, ${JSON.stringify(value.flags)})`;
  if (value instanceof Set) {
    const items = [...value];
    if (!items.every(isPrimitive)) throw new Error(`${label}: a Set constant with non-primitive members`);
    return `/* @__PURE__ */ new Set([${items.map(primitiveLiteral).join(', ')}])`;
  }
  if (Array.isArray(value)) {
    if (!value.every(isPrimitive)) throw new Error(`${label}: an array constant with non-primitive members`);
    return `[${value.map(primitiveLiteral).join(', ')}]`;
  }
  if (isPrimitive(value)) return primitiveLiteral(value);
  if (typeof value === 'function') {
    const nested = nestedCompiled.get(value);
    if (nested) {
      checkShape(nested, label);
      return compiledExpression(nested, label, emit, runtime, '      ');
    }
    const support = SUPPORT_FUNCTIONS.get(value);
    if (support) {
      emit.support.add(support);
      return support;
    }
    if (value === Object.prototype.propertyIsEnumerable) return 'Object.prototype.propertyIsEnumerable';
    if (value.name === 'throwAsync') {
      emit.support.add('throwAsync');
      return 'throwAsync';
    }
    const known = runtime.byValue.get(value);
    if (known) {
      addRuntimeImport(emit, known);
      return known.name;
    }
    const source = value.toString();
    // zod's `.default(v)` getter: `() => schema._zod.def.defaultValue`; the value itself is emitted.
    if (value.length === 0 && /\bdefaultValue\b/.test(source)) {
      const defaultValue = (value as () => unknown)();
      const json = JSON.stringify(defaultValue);
      if (json === undefined || !isDeepStrictEqual(JSON.parse(json), defaultValue)) throw new Error(`${label}: a default value that is not plain JSON`);
      return `() => (${json})`;
    }
    emit.inlined.push({ source, label });
    return `(${source})`;
  }
  throw new Error(`${label}: unsupported constant ${Object.prototype.toString.call(value)} (a runtime island or a non-serializable value)`);
}

function addRuntimeImport(emit: Emit, e: RuntimeExport): void {
  const names = emit.runtime.get(e.module) ?? new Set<string>();
  names.add(e.name);
  emit.runtime.set(e.module, names);
}

/**
 * The identifiers an inlined predicate reads but does not declare (JS globals aside), found with
 * the TypeScript checker over all of them at once.
 */
function freeIdentifiers(sources: readonly string[]): string[][] {
  const fileName = '/__inlined__.js';
  const text = sources.map((s, i) => `const __f${i} = (${s});\n`).join('');
  const options: ts.CompilerOptions = { allowJs: true, checkJs: false, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'] };
  const host = ts.createCompilerHost(options);
  const original = host.getSourceFile.bind(host);
  host.getSourceFile = (name, languageVersion, ...rest) =>
    name === fileName ? ts.createSourceFile(fileName, text, languageVersion, true, ts.ScriptKind.JS) : original(name, languageVersion, ...rest);
  const realFileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === fileName || realFileExists(name);
  const program = ts.createProgram([fileName], options, host);
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(fileName)!;
  const result: string[][] = [];
  for (const statement of file.statements) {
    const decl = (statement as ts.VariableStatement).declarationList.declarations[0]!;
    const free = new Set<string>();
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node) && isReference(node) && checker.getSymbolAtLocation(node) === undefined) free.add(node.text);
      ts.forEachChild(node, visit);
    };
    visit(decl.initializer!);
    result.push([...free]);
  }
  const syntax = program.getSyntacticDiagnostics(file);
  if (syntax.length > 0) throw new Error(`an inlined predicate does not parse: ${ts.flattenDiagnosticMessageText(syntax[0]!.messageText, '\n')}`);
  return result;
}

function isReference(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false;
  if (
    (ts.isPropertyAssignment(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isGetAccessor(parent) ||
      ts.isSetAccessor(parent)) &&
    parent.name === node
  )
    return false;
  if (ts.isBindingElement(parent) && parent.propertyName === node) return false;
  if ((ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent)) && parent.label === node) return false;
  return true;
}

/**
 * Targets for the catalog types whose schema is none of `given`: each found by identity among the
 * exports of the modules under events/ (the first module, in path order, that exports it).
 */
export async function eventTargetsBeyond(given: readonly Target[]): Promise<Target[]> {
  const { ALL_EVENT_DEFINITIONS } = (await load('events/definitions.ts')) as { ALL_EVENT_DEFINITIONS: readonly { type: string; schema: unknown }[] };
  const known = new Set<unknown>();
  for (const target of given) known.add((await load(target.module))[target.name]);
  // The schema modules only: the domain folders and the top-level event files. Not the catalog's
  // own modules, which import the generated code this run is about to write.
  const modules = readdirSync(resolve(ROOT, 'events'), { recursive: true, encoding: 'utf8' })
    .map((file) => file.split('\\').join('/'))
    .filter(
      (file) =>
        file.endsWith('.ts') &&
        !file.endsWith('.generated.ts') &&
        !file.endsWith('index.ts') &&
        (file.includes('/') || file === 'log.ts' || file === 'note.ts'),
    )
    .map((file) => posix.join('events', file))
    .sort();
  const exportsOf = new Map<unknown, Target>();
  for (const module of modules) {
    for (const [name, value] of Object.entries(await load(module))) {
      if (typeof value === 'object' && value !== null && '_zod' in value && !exportsOf.has(value)) exportsOf.set(value, { module, name });
    }
  }
  const names = new Set(given.map((t) => t.name));
  const extra: Target[] = [];
  for (const def of ALL_EVENT_DEFINITIONS) {
    if (known.has(def.schema)) continue;
    const target = exportsOf.get(def.schema);
    if (!target) throw new Error(`event type ${def.type}: its data schema is not exported by any module under events/`);
    if (names.has(target.name)) throw new Error(`event type ${def.type}: ${target.name} is the name of another target; rename one export`);
    names.add(target.name);
    known.add(def.schema);
    extra.push(target);
  }
  return extra;
}

// ---- one output file ----------------------------------------------------------------------------

function importPath(fromFile: string, module: string): string {
  let rel = posix.relative(posix.dirname(fromFile), module).replace(/\.ts$/, '.js');
  if (!rel.startsWith('.')) rel = `./${rel}`;
  return rel;
}

async function generateOne(spec: OutputSpec, runtime: Awaited<ReturnType<typeof runtimeExports>>): Promise<string> {
  const emit: Emit = { support: new Set(['INVALID', 'compileValidator', 'lazyParse']), runtime: new Map(), inlined: [] };
  const typeImports = new Map<string, string>();
  const schemaByIdentity = new Map<unknown, string>();
  const blocks: string[] = [];
  const targets = spec.allEventTypes ? [...spec.targets, ...(await eventTargetsBeyond(spec.targets))] : spec.targets;
  for (const target of targets) {
    const ns = await load(target.module);
    const schema = ns[target.name];
    const label = `${target.module}#${target.name}`;
    if (!schema || typeof schema !== 'object' || !('_zod' in schema)) throw new Error(`${label} is not a zod schema`);
    schemaByIdentity.set(schema, target.name);
    const compiled = compileSchema(schema, label);
    const args = compiled.values.slice(1).map((v, i) => serialize(v, `${label} constant ${compiled.names[i + 1]}`, emit, runtime));
    if (!typeImports.has(target.module)) typeImports.set(target.module, `m${typeImports.size}`);
    const alias = typeImports.get(target.module)!;
    const path = importPath(spec.file, target.module);
    const body = compiled.body.replace(/^return /, '').replace(/\n/g, '\n    ');
    blocks.push(
      [
        `/** \`${target.name}\` of ${target.module}, compiled. */`,
        `export const ${target.name}: ${target.lazy ? 'LazyCompiledSchema' : 'CompiledSchema'}<z.output<typeof ${alias}.${target.name}>> = {`,
        `  source: ${JSON.stringify(label)},`,
        ...(target.lazy ? [`  schema: () => import(${JSON.stringify(path)}).then((m) => m.${target.name}),`] : []),
        // Pure: a bundle that does not use a validator leaves it out (esbuild drops unused pure calls).
        // Built on first use, from its text: V8 pre-parses every function of a module it loads, and
        // the validators of every event type ride along in each short command's bundle, while a
        // string literal is only scanned. A short command then pays only for the validators it calls.
        `  parse: /* @__PURE__ */ lazyParse(() => compileValidator(${JSON.stringify(label)}, ${JSON.stringify(compiled.names.join(', '))}, ${JSON.stringify(body.replace(/\n {4}/g, '\n'))})(`,
        `    ${['INVALID', ...args].join(',\n    ')},`,
        `  )),`,
        `};`,
      ].join('\n'),
    );
  }

  // Inlined predicates may read runtime exports (by name), nothing else.
  const frees = freeIdentifiers(emit.inlined.map((i) => i.source));
  emit.inlined.forEach((inlined, i) => {
    for (const name of frees[i]!) {
      const known = runtime.byName.get(name);
      if (!known) {
        throw new Error(
          `${inlined.label}: the refinement ${inlined.source.slice(0, 80)} reads ${name}, which no runtime module exports ` +
            `(${RUNTIME_MODULES.join(', ')}); refine with a named predicate exported by one of them`,
        );
      }
      addRuntimeImport(emit, known);
    }
  });

  const tail: string[] = [];
  if (spec.allEventTypes || spec.upcasters) {
    const { ALL_EVENT_DEFINITIONS } = (await load('events/definitions.ts')) as {
      ALL_EVENT_DEFINITIONS: readonly { type: string; schema: unknown; streams: readonly string[]; upcasters?: readonly unknown[] }[];
    };
    if (spec.allEventTypes) {
      const entries = ALL_EVENT_DEFINITIONS.map((def) => {
        const name = schemaByIdentity.get(def.schema);
        if (!name) throw new Error(`event type ${def.type}: its catalog schema is none of this file's targets`);
        const internal = (def as { internal?: boolean }).internal === true ? ', internal: true' : '';
        return `  ${JSON.stringify(def.type)}: { streams: ${JSON.stringify(def.streams)}, data: ${name}${internal} },`;
      });
      tail.push(
        '/** Every catalog type: stream categories, whether only Baton records it, and the compiled data schema. */',
        `export const COMPILED_EVENT_TYPES: Readonly<Record<string, CompiledEventType>> = {\n${entries.join('\n')}\n};`,
      );
    }
    if (spec.upcasters) {
      const entries: string[] = [];
      for (const def of ALL_EVENT_DEFINITIONS) {
        if (!def.upcasters || def.upcasters.length === 0) continue;
        const names = def.upcasters.map((fn) => {
          const known = runtime.byValue.get(fn);
          if (!known) throw new Error(`event type ${def.type}: an upcaster is not exported by a runtime module (${RUNTIME_MODULES.join(', ')})`);
          addRuntimeImport(emit, known);
          return known.name;
        });
        entries.push(`  ${JSON.stringify(def.type)}: [${names.join(', ')}],`);
      }
      tail.push(
        '/** The upcasters of every catalog type that has any, in order (the same functions the catalog runs). */',
        `export const UPCASTERS: Readonly<Record<string, readonly Upcaster[]>> = {\n${entries.join('\n')}\n};`,
      );
    }
  }

  const supportNames = [...emit.support].sort();
  const supportTypes = [
    'type CompiledSchema',
    ...(spec.targets.some((t) => t.lazy) ? ['type LazyCompiledSchema'] : []),
    ...(spec.allEventTypes ? ['type CompiledEventType'] : []),
    ...(spec.upcasters ? ['type Upcaster'] : []),
  ];
  const header = [
    `// GENERATED by scripts/generate-validators.ts — do not edit. \`npm run build\` regenerates it.`,
    `// Compiled validators for ${spec.purpose}. See events/compiled.ts.`,
    '// @ts-nocheck -- zod-generated code; the exported types are declared below.',
    `import type { z } from 'zod';`,
    `import { ${[...supportNames, ...supportTypes].join(', ')} } from '${importPath(spec.file, SUPPORT_MODULE)}';`,
    ...[...emit.runtime.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([module, names]) => `import { ${[...names].sort().join(', ')} } from '${importPath(spec.file, module)}';`),
    ...[...typeImports.entries()].map(([module, alias]) => `import type * as ${alias} from '${importPath(spec.file, module)}';`),
  ];
  return `${header.join('\n')}\n\n${blocks.join('\n\n')}\n${tail.length > 0 ? `\n${tail.join('\n')}\n` : ''}`;
}

/** The text of every generated file, keyed by its path relative to the project root. */
export async function generateValidatorSources(): Promise<Map<string, string>> {
  const runtime = await runtimeExports();
  const out = new Map<string, string>();
  for (const spec of OUTPUTS) out.set(spec.file, await generateOne(spec, runtime));
  return out;
}

/**
 * The modules a generated file loads statically, bundled as the CLI bundles them: none may be
 * zod (or yaml) — that is the whole point. Returns the offending inputs.
 */
export async function heavyStaticInputs(file: string): Promise<string[]> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [file],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    write: false,
    metafile: true,
    outdir: resolve(ROOT, 'dist', '.validators-check'),
    external: ['pg', 'pg-native'],
    logLevel: 'silent',
  });
  const outputs = result.metafile.outputs;
  // Every dynamic import is an entry point too; the file's own output is the one it names.
  const entry = Object.keys(outputs).find((k) => outputs[k]!.entryPoint === file)!;
  const seen = new Set<string>();
  const visit = (key: string): void => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const imp of outputs[key]!.imports) if (imp.kind === 'import-statement' && outputs[imp.path]) visit(imp.path);
  };
  visit(entry);
  const heavy = new Set<string>();
  for (const key of seen)
    for (const input of Object.keys(outputs[key]!.inputs))
      if (/node_modules\/(zod|yaml)\//.test(input)) heavy.add(input.replace(/^.*node_modules\//, '').split('/')[0]!);
  return [...heavy];
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const sources = await generateValidatorSources();
  let stale = 0;
  for (const [file, text] of sources) {
    const path = resolve(ROOT, file);
    const current = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    if (current === text) continue;
    if (check) {
      console.error(`${file} is out of date: run \`node --import tsx scripts/generate-validators.ts\` (or npm run build)`);
      stale++;
    } else {
      writeFileSync(path, text);
      console.log(`wrote ${relative(ROOT, path)}`);
    }
  }
  for (const file of sources.keys()) {
    const heavy = await heavyStaticInputs(file);
    if (heavy.length > 0) throw new Error(`${file} loads ${heavy.join(' and ')} statically; the runtime modules must be zod-free`);
  }
  if (stale > 0) process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
