import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NewEvent, StoredEvent } from '../events/envelope.js';
import { serializeEvent } from '../src/store/hash.js';

/**
 * What the benchmarks share: where the project is, how to start a child script with plain node,
 * temporary directories that are always removed, and events sized like the spec's (~385 bytes a
 * stored line).
 */

const here = dirname(fileURLToPath(import.meta.url));
/** True when running the compiled `dist/bench/*.js`, false under tsx from `bench/*.ts`. */
export const COMPILED = here.endsWith(`${sep}dist${sep}bench`);
export const PROJECT_ROOT = COMPILED ? resolve(here, '..', '..') : resolve(here, '..');

/**
 * The command line that runs a bench child script with plain node against the compiled code in
 * `dist/`. Under tsx (development) the compiled script is used when it is at least as new as its
 * source; otherwise the source runs through tsx's loader.
 */
export function childCommand(script: string): { args: string[]; compiled: boolean } {
  const compiled = join(PROJECT_ROOT, 'dist', 'bench', `${script}.js`);
  if (COMPILED) return { args: [compiled], compiled: true };
  const source = join(PROJECT_ROOT, 'bench', `${script}.ts`);
  if (existsSync(compiled) && statSync(compiled).mtimeMs >= statSync(source).mtimeMs) return { args: [compiled], compiled: true };
  return { args: ['--import', 'tsx', source], compiled: false };
}

/** Run a child script to completion; resolves with its stdout, rejects on a non-zero exit. */
export function runChild(script: string, args: readonly string[], nodeFlags: readonly string[] = []): Promise<string> {
  const { args: scriptArgs } = childCommand(script);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, ...scriptArgs, ...args], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolvePromise(out);
      else reject(new Error(`${script} ${args.join(' ')} exited with ${code ?? signal}`));
    });
  });
}

/** The last line of a child's stdout, parsed: children print their result as one JSON line. */
export function lastJsonLine<T>(stdout: string): T {
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines.at(-1)!) as T;
}

/** Start a child script with an IPC channel (for start barriers). */
export function forkChild(script: string, args: readonly string[]): ChildProcess {
  const { args: scriptArgs } = childCommand(script);
  return spawn(process.execPath, [...scriptArgs, ...args], { cwd: PROJECT_ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

// ---- temporary directories ------------------------------------------------------------------

const liveDirs = new Set<string>();

/** A fresh directory under os.tmpdir(); removed by `removeTempDir` or, at the latest, on exit. */
export function makeTempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `baton-bench-${label}-`));
  liveDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  liveDirs.delete(dir);
}

export async function withTempDir<T>(label: string, body: (dir: string) => Promise<T>): Promise<T> {
  const dir = makeTempDir(label);
  try {
    return await body(dir);
  } finally {
    removeTempDir(dir);
  }
}

export function removeAllTempDirs(): void {
  for (const dir of [...liveDirs]) removeTempDir(dir);
}

// ---- events sized like the spec's -----------------------------------------------------------

/** The spec's limits were measured with ~385-byte stored lines (newline included). */
export const TARGET_LINE_BYTES = 385;
export const STREAM_COUNT = 10_000;

export function streamFor(i: number): string {
  return `note/bench-${String(i % STREAM_COUNT).padStart(4, '0')}`;
}

/** A stored event as the store would write it for a note (used to size the text). */
function sampleStored(text: string, seq: number): StoredEvent {
  return {
    v: 1,
    seq,
    id: '01JBENCH0000000000000000000',
    type: 'note.recorded',
    stream: streamFor(0),
    at: '2025-01-01T00:00:00.000Z',
    actor: 'system',
    data: { text },
    prev: '0'.repeat(64),
    hash: '0'.repeat(64),
  };
}

/** Text length that makes a stored note line (seq with 6 digits) about TARGET_LINE_BYTES long. */
export const NOTE_TEXT_LENGTH = ((): number => {
  const base = Buffer.byteLength(serializeEvent(sampleStored('', 100_000))) + 1;
  return Math.max(1, TARGET_LINE_BYTES - base);
})();

/** Note text of NOTE_TEXT_LENGTH characters that names its writer and position. */
export function noteText(tag: string): string {
  const head = `${tag} `;
  return head.length >= NOTE_TEXT_LENGTH ? head.slice(0, NOTE_TEXT_LENGTH) : head + 'x'.repeat(NOTE_TEXT_LENGTH - head.length);
}

export function noteEvent(i: number, tag = `n${i}`): NewEvent {
  return { type: 'note.recorded', stream: streamFor(i), data: { text: noteText(tag) } };
}

/** A line of TARGET_LINE_BYTES bytes (newline included) for the raw machine-limit loops. */
export function rawLine(tag = 'raw'): Buffer {
  const event = sampleStored(noteText(tag), 100_000);
  const text = serializeEvent(event) + '\n';
  return Buffer.from(text, 'utf8');
}

// ---- small statistics -----------------------------------------------------------------------

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

export function mb(bytes: number): number {
  return bytes / (1024 * 1024);
}

/** A small seeded generator (mulberry32): a campaign or a generated repository is the same from the same seed, on every machine. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
