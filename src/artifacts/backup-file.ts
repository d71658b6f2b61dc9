import { existsSync } from 'node:fs';
import { FileAccess, writeFileAtomic } from './atomic-write.js';

/**
 * I8 / D6: keep a byte-identical copy of a state file at `<file>.bak.<YYYYmmddHHMMSS>` (UTC, the
 * command's clock), `-2`, `-3`, … when that name is taken. Returns the path of the copy.
 */
export function backupName(path: string, now: string): string {
  const stamp = now.slice(0, 19).replace(/[-:T]/g, '');
  const base = `${path}.bak.${stamp}`;
  if (!existsSync(base)) return base;
  for (let n = 2; ; n++) if (!existsSync(`${base}-${n}`)) return `${base}-${n}`;
}

export function backupFile(workspace: string, path: string, content: Buffer, now: string): string {
  const target = backupName(path, now);
  writeFileAtomic(workspace, target, content, FileAccess.shared);
  return target;
}
