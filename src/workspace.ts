import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { invalidInput } from './errors.js';

/**
 * Which directory is the workspace: `--dir`/`BATON_DIR` when given, else the top level of the git
 * repository around the current directory (found by walking up to `.git`, no git process), else
 * the current directory.
 */
export function resolveWorkspace(explicit: string | undefined, cwd: string = process.cwd()): string {
  if (explicit !== undefined) {
    if (explicit.trim() === '') throw invalidInput('must not be empty', '--dir');
    return resolve(cwd, explicit);
  }
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return resolve(cwd);
    dir = parent;
  }
}

/** The raw text of `.baton/config.yaml`, or undefined when the workspace has none. */
export function readConfigText(workspace: string): string | undefined {
  try {
    return readFileSync(join(workspace, '.baton', 'config.yaml'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
