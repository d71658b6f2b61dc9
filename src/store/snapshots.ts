import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { readFileNoFollow } from '../artifacts/owned-paths.js';
import { join } from 'node:path';
import { HASH_PATTERN } from '../../events/patterns.js';
import { DIR_MODE, FILE_MODE } from './jsonl/layout.js';

/**
 * Projection snapshots: `<cache>/<name>.snapshot.json` = { name, version, seq, hash, state }, the
 * projection's state after folding events 1..seq, where event `seq` had `hash`. A snapshot is a
 * cache: deleting it loses nothing, and a file that cannot be read, parsed or trusted is reported
 * (never thrown) so the runner rebuilds from the log.
 */
export interface Snapshot {
  name: string;
  version: number;
  seq: number;
  hash: string;
  /** The projection's state as a JSON value (its `serialize` output, when it has one). */
  state: unknown;
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
  let text: string;
  try {
    const bytes = readFileNoFollow(path);
    if (bytes === undefined) return { kind: SnapshotLoadKind.MISSING };
    text = bytes.toString('utf8');
  } catch (error) {
    return { kind: SnapshotLoadKind.CORRUPT, reason: `cannot read the file: ${(error as Error).message}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: SnapshotLoadKind.CORRUPT, reason: 'not valid JSON' };
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
    snapshot: { name: snapshot.name, version: snapshot.version, seq: snapshot.seq, hash: snapshot.hash, state: snapshot.state },
  };
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
    const body = Buffer.from(
      JSON.stringify({ name: snapshot.name, version: snapshot.version, seq: snapshot.seq, hash: snapshot.hash, state: snapshot.state }),
      'utf8',
    );
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
