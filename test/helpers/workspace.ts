import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { StoredEventSchema, type StoredEvent } from '../../events/envelope.js';

/**
 * Temporary workspaces and what tests look at inside them: the segment files, the stored lines,
 * and a content hash of every file under a folder (to prove a command changed nothing).
 */
const created: string[] = [];

export function makeTempDir(prefix = 'baton-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Remove every directory made by `makeTempDir` so far (call from afterEach/afterAll). */
export function removeTempDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * A setup many tests share, built once and copied for each (`cp -r`) instead of run again by every
 * test: `build` runs on the first call, in a temporary folder of its own (rebuilt if removeTempDirs
 * has removed it since); each call returns a copy of that folder — in `into` if given (an empty
 * folder), else in a new temporary one — and what `build` returned (the ids it made).
 */
export function sharedSetup<T>(prefix: string, build: (dir: string) => Promise<T>): (into?: string) => Promise<{ dir: string; made: T }> {
  let template: Promise<{ dir: string; made: T }> | undefined;
  return async (into) => {
    if (template === undefined || !existsSync((await template).dir)) {
      const dir = makeTempDir(`${prefix}template-`);
      template = build(dir).then((made) => ({ dir, made }));
    }
    const { dir: from, made } = await template;
    const dir = into ?? makeTempDir(prefix);
    cpSync(from, dir, { recursive: true });
    return { dir, made };
  };
}

export function logDir(workspace: string): string {
  return join(workspace, '.baton', 'log');
}

export function quarantineDir(workspace: string): string {
  return join(workspace, '.baton', 'quarantine');
}

/** Segment file paths in order. */
export function segmentPaths(workspace: string): string[] {
  let names: string[];
  try {
    names = readdirSync(logDir(workspace));
  } catch {
    return [];
  }
  return names
    .filter((name) => /^\d{12}\.jsonl$/.test(name))
    .sort()
    .map((name) => join(logDir(workspace), name));
}

/** Every segment's bytes, concatenated in order. */
export function segmentBytes(workspace: string): Buffer {
  return Buffer.concat(segmentPaths(workspace).map((path) => readFileSync(path)));
}

/** The stored lines (without newlines) of every segment, in order. */
export function storedLines(workspace: string): string[] {
  const text = segmentBytes(workspace).toString('utf8');
  if (text === '') return [];
  if (!text.endsWith('\n')) throw new Error('the log ends with an unterminated line');
  return text.slice(0, -1).split('\n');
}

export function storedEvents(workspace: string): StoredEvent[] {
  return storedLines(workspace).map((line) => StoredEventSchema.parse(JSON.parse(line)));
}

/** Relative path → SHA-256 of the content, for every file under `root` (directories as `dir/`). */
export function hashTree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string): void => {
    let entries: string[];
    try {
      entries = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of entries) {
      const path = join(dir, name);
      const rel = relative(root, path);
      if (statSync(path).isDirectory()) {
        out[`${rel}/`] = 'dir';
        walk(path);
      } else {
        out[rel] = createHash('sha256').update(readFileSync(path)).digest('hex');
      }
    }
  };
  walk(root);
  return out;
}

/** Every file and directory under `root`, with its permission bits. */
export function modesUnder(root: string): { path: string; isDirectory: boolean; mode: number }[] {
  const out: { path: string; isDirectory: boolean; mode: number }[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const stat = statSync(path);
      out.push({ path: relative(root, path), isDirectory: stat.isDirectory(), mode: stat.mode & 0o777 });
      if (stat.isDirectory()) walk(path);
    }
  };
  walk(root);
  return out;
}
