import type { z } from 'zod';

/**
 * Compiled validators: zod's own AOT compiler (`zod/v4/core` compileFn) run at build time over the
 * zod schemas, serialized by scripts/generate-validators.ts into `*.generated.ts` modules that load
 * no zod. zod stays the single source of truth: a compiled validator answers only "valid, and
 * here is zod's output" or INVALID, and the caller asks the zod schema itself (loaded on demand)
 * why an input failed, so error messages are zod's, word for word. test/compiled-validators.test.ts
 * holds that every compiled validator agrees with its schema on random valid and invalid inputs.
 *
 * This module is the generated code's runtime: the sentinel and the few zod helpers it calls,
 * copied from zod 4 (`zod/v4/core/util`, MIT) so that loading a validator never loads zod.
 */

/** What a compiled validator returns for an input its schema rejects. */
export const INVALID: unique symbol = Symbol('baton.compiled.invalid');
export type INVALID = typeof INVALID;

export interface CompiledSchema<T> {
  /** zod's output for `input` (a fresh value, defaults applied), or INVALID when the schema rejects it. */
  readonly parse: (input: unknown) => T | INVALID;
  /** `path/to/module.ts#ExportName` of the zod schema it was compiled from. */
  readonly source: string;
}

/** A compiled validator that can load its zod schema, to ask it for the error. */
export interface LazyCompiledSchema<T> extends CompiledSchema<T> {
  readonly schema: () => Promise<z.ZodType<T>>;
}

const highSurrogate = /[\uD800-\uDBFF]/;

/** Code points in `str`: a surrogate pair counts once, a lone surrogate as itself (zod's string lengths). */
export function codePointLength(str: string): number {
  const units = str.length;
  if (!highSurrogate.test(str)) return units;
  let count = units;
  for (let i = 0; i < units - 1; i++) {
    if ((str.charCodeAt(i) & 0xfc00) === 0xd800 && (str.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}

function isObject(data: unknown): data is Record<PropertyKey, unknown> {
  return typeof data === 'object' && data !== null && !Array.isArray(data);
}

export function isPlainObject(o: unknown): o is Record<PropertyKey, unknown> {
  if (isObject(o) === false) return false;
  const ctor = (o as { constructor?: unknown }).constructor;
  if (ctor === undefined) return true;
  if (typeof ctor !== 'function') return true;
  const prot = (ctor as { prototype?: unknown }).prototype;
  if (isObject(prot) === false) return false;
  if (Object.prototype.hasOwnProperty.call(prot, 'isPrototypeOf') === false) return false;
  return true;
}

export function shallowClone(o: unknown): unknown {
  if (isPlainObject(o)) return { ...o };
  if (Array.isArray(o)) return [...o];
  if (o instanceof Map) return new Map(o);
  if (o instanceof Set) return new Set(o);
  return o;
}

/**
 * A validator built on its first call. Generated modules hold dozens of validators; building each
 * (its closure, regexes and sets) when the module loads would charge every short command for all of them.
 */
export function lazyParse<T>(build: () => (input: unknown) => T | INVALID): (input: unknown) => T | INVALID {
  let parse: ((input: unknown) => T | INVALID) | undefined;
  return (input) => (parse ??= build())(input);
}

/** A generated validator's factory: given its constants, the validator. */
export type ValidatorFactory = (...constants: unknown[]) => (input: unknown) => unknown;

/**
 * How a validator's text becomes its factory: `id` names the validator (`path/to/module.ts#Export`),
 * `params` the constants it closes over, and `body` is an arrow function that reads only those and
 * the language's globals. The bin's bundles leave `body` out (undefined): its compiler reads the
 * text from the validators file built beside them (src/cli/validator-code-cache.ts).
 */
export type ValidatorCompiler = (id: string, params: string, body: string | undefined) => ValidatorFactory;

const compileWithFunction: ValidatorCompiler = (id, params, body) => {
  if (body === undefined) throw new Error(`validator ${id}: no text to compile (a bundle without validator texts needs the compiler that reads them)`);
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated at build time from our own zod schemas, never from input
  return new Function(...params.split(', '), `return ${body};`) as ValidatorFactory;
};

/**
 * The process's compiler. The default builds each factory with `new Function`, which parses its
 * text every run; the bin installs one that reads the texts and V8's code cache written at build
 * time (src/cli/validator-code-cache.ts): compiling the validators a status needs is a large part
 * of a short command's own time, and the texts in every bundle a large part of what it loads.
 * Either gives the same function.
 */
let compiler: ValidatorCompiler = compileWithFunction;

export function useValidatorCompiler(next: ValidatorCompiler): void {
  compiler = next;
}

/**
 * A generated validator's factory, from its text (see scripts/generate-validators.ts), or from
 * its id alone in the bin's bundles. Called once per validator, on its first use.
 */
export function compileValidator(id: string, params: string, body?: string): ValidatorFactory {
  return compiler(id, params, body);
}

const ARROW = '(input) => {';

/**
 * The text of a validator's factory as a script whose value is the factory, the validator written
 * as a parenthesized function expression: V8 compiles such a function with its script instead of
 * on its first call, so a code cache of the script holds the validator's code too.
 */
export function validatorScript(params: string, body: string): string {
  const validator = body.startsWith(ARROW) ? `(function (input) {${body.slice(ARROW.length)})` : body;
  return `(function (${params}) {\nreturn ${validator};\n})`;
}

/** zod throws when a refinement returns a promise; compiled validators support synchronous ones only. */
export function throwAsync(): never {
  throw new Error('a compiled validator met an asynchronous refinement; use the zod schema');
}

/** An upcaster: lifts a legacy stored data shape to today's (see EventDefinition). */
export type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>;

/** What the catalog knows of an event type without zod. */
export interface CompiledEventType {
  /** Stream categories (the part before `/`) the type may be appended to. */
  readonly streams: readonly string[];
  readonly data: CompiledSchema<unknown>;
  /** Recorded by Baton itself (the store's recovery report): `baton log append` refuses it. */
  readonly internal?: boolean;
}
