import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { validatorScript, type ValidatorCompiler, type ValidatorFactory } from '../../events/compiled.js';

/**
 * V8's code cache for the generated validators. A short command calls a handful of validators,
 * some tens of kilobytes of text each (the status envelope's is the largest), and compiling them
 * from text is a large part of its own time; V8 can instead deserialize the code it compiled
 * before. The build (scripts/bundle-cli.mjs) compiles every validator once and writes the cache
 * beside the bin; the bin's compiler serves each validator from it.
 *
 * The cache is only an accelerator. It is skipped whole when it was written by another Node (V8
 * would refuse it anyway), an entry is used only for the very text it was made from (its SHA-1 is
 * checked), and V8 checks the rest (its version, flags, a checksum): whatever it refuses is
 * compiled from the text, as without a cache.
 *
 * Layout: the magic `BVC1`, the header's length (uint32, little-endian), the header (JSON), then
 * the entries' bytes one after the other.
 */
const MAGIC = 'BVC1';

interface Header {
  node: string;
  entries: Record<string, { sha1: string; offset: number; length: number }>;
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
    for (const m of readFileSync(join(root, file), 'utf8').matchAll(call)) texts.push({ id: JSON.parse(m[1]!) as string, params: JSON.parse(m[2]!) as string, body: JSON.parse(m[3]!) as string });
  }
  return texts;
}

type Vm = typeof import('node:vm');
type Crypto = typeof import('node:crypto');
// Required on first use: the bin installs the cache for every command, and `baton --version` (or a
// library user that never installs it) compiles no validator, so it should not load vm or crypto.
let vm: Vm | undefined;
let crypto: Crypto | undefined;
const loadVm = (): Vm => (vm ??= createRequire(import.meta.url)('node:vm') as Vm);

const scriptName = (id: string): string => `baton-validator:${id}`;
const sha1 = (text: string): string => (crypto ??= createRequire(import.meta.url)('node:crypto') as Crypto).createHash('sha1').update(text).digest('hex');

/** Compiles every validator and writes their code cache to `file`; returns its size and entry count. */
export function writeValidatorCodeCache(file: string, validators: readonly ValidatorText[]): { bytes: number; entries: number } {
  const entries: Header['entries'] = {};
  const blobs: Buffer[] = [];
  let offset = 0;
  for (const { id, params, body } of validators) {
    if (Object.hasOwn(entries, id)) continue;
    const source = validatorScript(params, body);
    const data = new (loadVm().Script)(source, { filename: scriptName(id) }).createCachedData();
    entries[id] = { sha1: sha1(source), offset, length: data.length };
    blobs.push(data);
    offset += data.length;
  }
  const header = Buffer.from(JSON.stringify({ node: process.version, entries } satisfies Header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  const bytes = Buffer.concat([Buffer.from(MAGIC, 'latin1'), length, header, ...blobs]);
  writeFileSync(file, bytes);
  return { bytes: bytes.length, entries: blobs.length };
}

export interface CodeCacheCompiler {
  compile: ValidatorCompiler;
  /** Validators served from the cache, and compiled from their text (no entry, another text, or refused by V8). */
  readonly stats: { cached: number; compiled: number };
}

/**
 * A compiler that serves validators from the code cache in `file` (read on the first compile).
 * Without a usable cache it compiles each validator's script from its text: the same function.
 */
export function codeCacheCompiler(file: string): CodeCacheCompiler {
  let cache: { header: Header; bytes: Buffer; start: number } | null | undefined;
  const stats = { cached: 0, compiled: 0 };
  const open = (): typeof cache => {
    try {
      const bytes = readFileSync(file);
      if (bytes.toString('latin1', 0, 4) !== MAGIC) return null;
      const length = bytes.readUInt32LE(4);
      const header = JSON.parse(bytes.toString('utf8', 8, 8 + length)) as Header;
      return header.node === process.version && typeof header.entries === 'object' && header.entries !== null ? { header, bytes, start: 8 + length } : null;
    } catch {
      // No cache (a build without one, an unreadable file): compile from the text.
      return null;
    }
  };
  const compile: ValidatorCompiler = (id, params, body) => {
    if (cache === undefined) cache = open();
    const source = validatorScript(params, body);
    const found = cache ?? undefined;
    const entry = found !== undefined && Object.hasOwn(found.header.entries, id) ? found.header.entries[id]! : undefined;
    const cachedData = found !== undefined && entry !== undefined && entry.sha1 === sha1(source) ? found.bytes.subarray(found.start + entry.offset, found.start + entry.offset + entry.length) : undefined;
    const script = new (loadVm().Script)(source, { filename: scriptName(id), ...(cachedData ? { cachedData } : {}) });
    if (cachedData !== undefined && !script.cachedDataRejected) stats.cached += 1;
    else stats.compiled += 1;
    return script.runInThisContext() as ValidatorFactory;
  };
  return { compile, stats };
}
