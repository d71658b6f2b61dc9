import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Every entry under a folder, without following links: relative path → what it is (a file's
 * SHA-1, a link's target, a folder). Two snapshots differ exactly where something was written.
 */
export function snapshotTree(root: string, skip: (rel: string) => boolean = () => false): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      const rel = relative(root, path);
      if (skip(rel)) continue;
      let stats;
      try {
        stats = lstatSync(path);
      } catch {
        continue;
      }
      if (stats.isSymbolicLink()) out.set(rel, `link:${readlinkSync(path)}`);
      else if (stats.isDirectory()) {
        out.set(rel, 'dir');
        walk(path);
      } else if (stats.isFile()) {
        let digest = 'unreadable';
        try {
          digest = createHash('sha1').update(readFileSync(path)).digest('hex');
        } catch {
          // A file that vanished meanwhile is a change the comparison shows.
        }
        out.set(rel, `file:${digest}:${stats.mode & 0o7777}`);
      } else out.set(rel, `other:${stats.mode}`);
    }
  };
  walk(root);
  return out;
}

/** The paths whose entry was added, removed or changed. */
export function changedPaths(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  const changed: string[] = [];
  for (const [path, value] of after) if (before.get(path) !== value) changed.push(path);
  for (const path of before.keys()) if (!after.has(path)) changed.push(path);
  return changed.sort();
}
