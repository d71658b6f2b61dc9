import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { readFileNoFollow } from '../artifacts/owned-paths.js';
import { join } from 'node:path';
import { HASH_PATTERN } from '../../events/patterns.js';
import type { SnapshotBody } from '../../projections/projection.js';
import { DIR_MODE, FILE_MODE } from './jsonl/layout.js';

/**
 * Projection snapshots: `<cache>/<name>.snapshot.json` = { name, version, seq, hash, state }, the
 * projection's state after folding events 1..seq, where event `seq` had `hash`. A projection with a
 * split form (Projection.serializeSplit) stores `state` as its head, with `body` = the body's byte
 * length, then a newline and the body's bytes: a load parses the head line only. A snapshot is a
 * cache: deleting it loses nothing, and a file that cannot be read, parsed or trusted is reported
 * (never thrown) so the runner rebuilds from the log.
 */
export interface Snapshot {
  name: string;
  version: number;
  seq: number;
  hash: string;
  /** The projection's state as a JSON value (its `serialize` output), or the head of its split form. */
  state: unknown;
  /** The split form's body (text when written, read by byte range when loaded). */
  body?: SnapshotBody | string | undefined;
}

export const SnapshotLoadKind = {
  OK: 'ok',
  MISSING: 'missing',
  CORRUPT: 'corrupt',
  STALE: 'stale',
} as const;
export type SnapshotLoadKind = (typeof SnapshotLoadKind)[keyof typeof SnapshotLoadKind];

export type SnapshotLoad =
  | { kind: typeof SnapshotLoadKind.OK; snapshot: Snapshot }
  | { kind: typeof SnapshotLoadKind.MISSING }
  | { kind: typeof SnapshotLoadKind.CORRUPT; reason: string }
  | { kind: typeof SnapshotLoadKind.STALE; reason: string };

/** Projection names become file names: nothing that could leave the cache folder. */
const PROJECTION_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

export function snapshotPath(cacheDir: string, name: string): string {
  if (!PROJECTION_NAME_PATTERN.test(name)) throw new Error(`projection name "${name}" must match ${PROJECTION_NAME_PATTERN}`);
  return join(cacheDir, `${name}.snapshot.json`);
}

/**
 * Read the snapshot of projection `name` and check what the file alone can tell: well-formed,
 * the right name, the current version. Whether the log still holds `hash` at `seq` is the
 * runner's check (it needs the store).
 */
export function loadSnapshot(cacheDir: string, name: string, version: number): SnapshotLoad {
  const path = snapshotPath(cacheDir, name);
  let bytes: Buffer;
  try {
    const read = readFileNoFollow(path);
    if (read === undefined) return { kind: SnapshotLoadKind.MISSING };
    bytes = read;
  } catch (error) {
    return { kind: SnapshotLoadKind.CORRUPT, reason: `cannot read the file: ${(error as Error).message}` };
  }
  // JSON.stringify writes no newline: the first one ends the head of a snapshot with a body.
  const newline = bytes.indexOf(0x0a);
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8', 0, newline === -1 ? bytes.length : newline));
  } catch {
    return { kind: SnapshotLoadKind.CORRUPT, reason: 'not valid JSON' };
  }
  let body: SnapshotBody | undefined;
  if (newline !== -1) {
    body = bodyOf(bytes.subarray(newline + 1));
    const declared = (value as { body?: unknown } | null)?.body;
    if (declared !== body.length) return { kind: SnapshotLoadKind.CORRUPT, reason: `the body holds ${body.length} bytes, the head says ${String(declared)}` };
  }
  const problem = shapeProblem(value);
  if (problem !== undefined) return { kind: SnapshotLoadKind.CORRUPT, reason: problem };
  const snapshot = value as Snapshot;
  if (snapshot.name !== name) return { kind: SnapshotLoadKind.CORRUPT, reason: `holds projection "${snapshot.name}", not "${name}"` };
  if (snapshot.version !== version) {
    return { kind: SnapshotLoadKind.STALE, reason: `projection version ${snapshot.version}, current is ${version}` };
  }
  return {
    kind: SnapshotLoadKind.OK,
    snapshot: {
      name: snapshot.name,
      version: snapshot.version,
      seq: snapshot.seq,
      hash: snapshot.hash,
      state: snapshot.state,
      ...(body !== undefined ? { body } : {}),
    },
  };
}

/** Bytes a state reads by range: Buffer's own UTF-8 slice, the fastest way to a string of a few bytes. */
export function bodyOf(bytes: Buffer): SnapshotBody & { bytes: Buffer } {
  return { bytes, length: bytes.length, text: (start, end) => bytes.toString('utf8', start, end) };
}

function shapeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const record = value as Record<string, unknown>;
  if (typeof record['name'] !== 'string') return 'name must be a string';
  if (!Number.isSafeInteger(record['version'])) return 'version must be an integer';
  const seq = record['seq'];
  // A snapshot of the empty log would save nothing, so none is ever written.
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) return 'seq must be a positive integer';
  if (typeof record['hash'] !== 'string' || !HASH_PATTERN.test(record['hash'])) return 'hash must be a 64-character hex hash';
  if (!('state' in record)) return 'state is missing';
  return undefined;
}

export type SnapshotWrite = { written: true; path: string } | { written: false; reason: string };

let tempCounter = 0;

/**
 * Write a snapshot atomically: a fresh temp file (0600) in the cache folder (0700), then rename
 * over the old one, so a reader sees the old snapshot or the new one, never a mix. No fsync: after
 * a crash a torn or empty file only reads as corrupt and is rebuilt. I/O failures are returned, not
 * thrown — a cache that cannot be written only makes the next run slower.
 */
export function writeSnapshot(cacheDir: string, snapshot: Snapshot): SnapshotWrite {
  const path = snapshotPath(cacheDir, snapshot.name);
  // Unique per process and per call, so concurrent writers never share a temp file.
  const temp = `${path}.${process.pid}.${++tempCounter}.tmp`;
  try {
    mkdirSync(cacheDir, { recursive: true, mode: DIR_MODE });
    const { name, version, seq, hash, state } = snapshot;
    const tail =
      snapshot.body === undefined
        ? undefined
        : Buffer.from(typeof snapshot.body === 'string' ? snapshot.body : snapshot.body.text(0, snapshot.body.length), 'utf8');
    const head = Buffer.from(
      JSON.stringify(tail === undefined ? { name, version, seq, hash, state } : { name, version, seq, hash, state, body: tail.length }),
      'utf8',
    );
    const body = tail === undefined ? head : Buffer.concat([head, Buffer.from([0x0a]), tail]);
    const fd = openSync(temp, 'wx', FILE_MODE);
    try {
      let written = 0;
      while (written < body.length) written += writeSync(fd, body, written, body.length - written);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
    return { written: true, path };
  } catch (error) {
    try {
      rmSync(temp, { force: true });
    } catch {
      // Nothing more to do: a stray temp file in the cache is harmless.
    }
    return { written: false, reason: (error as Error).message };
  }
}
