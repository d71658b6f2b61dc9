import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { validatorScript, type ValidatorCompiler, type ValidatorFactory } from '../../events/compiled.js';

/**
 * The bin's validators file: the text of every generated validator and V8's code cache of it. A
 * short command calls a handful of validators, some tens of kilobytes of text each (the status
 * envelope's is the largest). Compiling them from text was a large part of its own time, and
 * carrying every text in every bundle (the catalog's module holds all of them) was more than
 * half of what `mem inbox` loaded. So the bundles leave the texts out (scripts/bundle-cli.mjs), the
 * build writes them here with the code V8 compiled for each, and the bin's compiler reads a
 * validator's text and code when the validator is first called.
 *
 * The code cache is only an accelerator: it is used when this Node wrote it and the script is
 * exactly the one it was made from (same constants, same text: a caller that passes its own text,
 * as a library would, gets the cached code only for the very same text); V8 checks the rest (its
 * version, flags, a checksum). Whatever it refuses is compiled from the text, as without a cache.
 *
 * Layout: the magic `BVC2`, the header's length (uint32, little-endian), the header (JSON), then
 * the texts (UTF-8) and code caches one after the other, each located by the header.
 */
const MAGIC = 'BVC2';

/** Where an entry's bytes are: [offset from the end of the header, length]. */
type Span = [number, number];

interface Header {
  node: string;
  entries: Record<string, { params: string; text: Span; code: Span }>;
}

export interface ValidatorText {
  id: string;
  params: string;
  body: string;
}

/**
 * The validators of generated modules (`files`, relative to `root`), read back from their
 * `compileValidator(id, params, body)` calls as scripts/generate-validators.ts writes them: what the
 * build compiles into the cache.
 */
export function readGeneratedValidators(root: string, files: readonly string[]): ValidatorText[] {
  const call = /compileValidator\(("(?:[^"\\]|\\.)*"), ("(?:[^"\\]|\\.)*"), ("(?:[^"\\]|\\.)*")\)/g;
  const texts: ValidatorText[] = [];
  for (const file of files) {
    for (const m of readFileSync(join(root, file), 'utf8').matchAll(call))
      texts.push({ id: JSON.parse(m[1]!) as string, params: JSON.parse(m[2]!) as string, body: JSON.parse(m[3]!) as string });
  }
  return texts;
}

type Vm = typeof import('node:vm');
// Required on first use: the bin installs the compiler for every command, and `baton --version` (or
// a library user that never installs it) compiles no validator, so it should not load vm.
let vm: Vm | undefined;
const loadVm = (): Vm => (vm ??= createRequire(import.meta.url)('node:vm') as Vm);

const scriptName = (id: string): string => `baton-validator:${id}`;

/** Writes every validator's text and code cache to `file`; returns its size and entry count. */
export function writeValidatorCodeCache(file: string, validators: readonly ValidatorText[]): { bytes: number; entries: number } {
  const entries: Header['entries'] = {};
  const blobs: Buffer[] = [];
  let offset = 0;
  const add = (bytes: Buffer): Span => {
    blobs.push(bytes);
    offset += bytes.length;
    return [offset - bytes.length, bytes.length];
  };
  for (const { id, params, body } of validators) {
    if (Object.hasOwn(entries, id)) continue;
    const code = new (loadVm().Script)(validatorScript(params, body), { filename: scriptName(id) }).createCachedData();
    entries[id] = { params, text: add(Buffer.from(body, 'utf8')), code: add(code) };
  }
  const header = Buffer.from(JSON.stringify({ node: process.version, entries } satisfies Header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  const bytes = Buffer.concat([Buffer.from(MAGIC, 'latin1'), length, header, ...blobs]);
  writeFileSync(file, bytes);
  return { bytes: bytes.length, entries: Object.keys(entries).length };
}

export interface CodeCacheCompiler {
  compile: ValidatorCompiler;
  /** Validators served from the cache, and compiled from their text (no entry, another text, or refused by V8). */
  readonly stats: { cached: number; compiled: number };
}

interface OpenFile {
  header: Header;
  bytes: Buffer;
  /** Where the header ends: spans count from here. */
  start: number;
}

/**
 * A compiler that reads validators from the file `file` (on the first compile): a validator called
 * with its text is compiled from that text, one called by id alone (the bin's bundles) from the
 * file's; either gets the file's code cache when it applies. A validator called by id alone that
 * the file does not hold (no file, another build's) is an error that names the file.
 */
export function codeCacheCompiler(file: string): CodeCacheCompiler {
  let opened: OpenFile | null | undefined;
  const stats = { cached: 0, compiled: 0 };
  const open = (): OpenFile | null => {
    try {
      const bytes = readFileSync(file);
      if (bytes.toString('latin1', 0, 4) !== MAGIC) return null;
      const length = bytes.readUInt32LE(4);
      const header = JSON.parse(bytes.toString('utf8', 8, 8 + length)) as Header;
      return typeof header.entries === 'object' && header.entries !== null ? { header, bytes, start: 8 + length } : null;
    } catch {
      // No file, or an unreadable one: validators called with their text compile from it.
      return null;
    }
  };
  const span = (found: OpenFile, [offset, length]: Span): Buffer => found.bytes.subarray(found.start + offset, found.start + offset + length);
  const compile: ValidatorCompiler = (id, params, body) => {
    if (opened === undefined) opened = open();
    const found = opened ?? undefined;
    const entry = found !== undefined && Object.hasOwn(found.header.entries, id) && wellFormed(found.header.entries[id]) ? found.header.entries[id] : undefined;
    const stored = entry !== undefined ? span(found!, entry.text).toString('utf8') : undefined;
    const text = body ?? stored;
    if (text === undefined)
      throw new Error(`validator ${id}: its text is not in ${file} (the bin's validators file is missing or from another build; reinstall baton)`);
    // The cached code is the script's only when it is the very script it was made from.
    const sameScript = entry !== undefined && entry.params === params && text === stored && found!.header.node === process.version;
    const cachedData = sameScript ? span(found!, entry.code) : undefined;
    const script = new (loadVm().Script)(validatorScript(params, text), { filename: scriptName(id), ...(cachedData ? { cachedData } : {}) });
    if (cachedData !== undefined && !script.cachedDataRejected) stats.cached += 1;
    else stats.compiled += 1;
    return script.runInThisContext() as ValidatorFactory;
  };
  return { compile, stats };
}

/** An entry as the build writes it (a damaged header is no entry: texts passed by callers still compile). */
function wellFormed(entry: unknown): entry is Header['entries'][string] {
  const isSpan = (v: unknown): boolean => Array.isArray(v) && v.length === 2 && v.every((n) => Number.isSafeInteger(n) && (n as number) >= 0);
  if (typeof entry !== 'object' || entry === null) return false;
  const e = entry as Record<string, unknown>;
  return typeof e['params'] === 'string' && isSpan(e['text']) && isSpan(e['code']);
}
