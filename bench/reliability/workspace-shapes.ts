import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InvocationCheck } from './fuzz-invocation.js';
import type { Place } from './fuzz-traps.js';

/**
 * Workspaces of an odd shape: a regular file where Baton's state folder or one of its folders
 * belongs, a `--dir` that cannot hold a workspace (`/proc/self`) or is a regular file. A command that
 * needs the store refuses them (exit 2 or 5), never exits 1, never hangs, and changes nothing. The
 * one shape a read may answer in is `.baton/cache` a file: reads need no cache (it is safe to
 * delete), so they may answer (exit 0) without touching it; writes, which make sure every store
 * folder is there, refuse it.
 */
export const WorkspaceShape = {
  batonIsFile: '.baton a file',
  logIsFile: '.baton/log a file',
  cacheIsFile: '.baton/cache a file',
  procSelf: '--dir /proc/self',
  dirIsFile: '--dir a file',
} as const;
export type WorkspaceShape = (typeof WorkspaceShape)[keyof typeof WorkspaceShape];

export const WORKSPACE_SHAPES: readonly WorkspaceShape[] = Object.values(WorkspaceShape);

/** Commands that need the store: in a workspace of an odd shape, the shape is their only reason to refuse. */
const STORE_COMMANDS: readonly { args: readonly string[]; writes: boolean }[] = [
  { args: ['init'], writes: true },
  { args: ['log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"shaped"}'], writes: true },
  { args: ['log', 'show'], writes: false },
  { args: ['log', 'verify'], writes: false },
  { args: ['log', 'stats'], writes: false },
];

/** Where a shaped workspace's regular file goes, below the workspace. */
const REPLACED: Partial<Record<WorkspaceShape, string>> = {
  [WorkspaceShape.batonIsFile]: '.baton',
  [WorkspaceShape.logIsFile]: join('.baton', 'log'),
  [WorkspaceShape.cacheIsFile]: join('.baton', 'cache'),
};

/**
 * Make the shape (a copy of the seeded workspace with a file in place of a folder, or a regular file
 * to name as `--dir`) in the epoch's home, and the invocation of one store command against it.
 */
export function shapeDraw(
  shape: WorkspaceShape,
  random: () => number,
  seedWorkspace: string,
  place: Place,
  index: number,
): { args: string[]; check: Omit<InvocationCheck, 'timeoutMs' | 'rerunOnTimeout'> } {
  const { args: command, writes } = STORE_COMMANDS[Math.floor(random() * STORE_COMMANDS.length)]!;
  const mode = random() < 0.5 ? '--json' : '--human';
  if (shape === WorkspaceShape.procSelf) return { args: [mode, '--dir', '/proc/self', ...command], check: { exits: [2, 5], named: [], workspace: null } };
  if (shape === WorkspaceShape.dirIsFile) {
    // A file of the home, outside every workspace: the home's snapshot sees any write to it.
    const file = join(place.home, `not-a-folder-${index}`);
    writeFileSync(file, 'a file, not a workspace\n');
    return { args: [mode, '--dir', file, ...command], check: { exits: [2, 5], named: [], workspace: null } };
  }
  const copy = join(place.home, `shaped-${index}`);
  cpSync(seedWorkspace, copy, { recursive: true, verbatimSymlinks: true });
  const replaced = join(copy, REPLACED[shape]!);
  rmSync(replaced, { recursive: true, force: true });
  writeFileSync(replaced, 'a file where a folder belongs\n');
  const exits = shape === WorkspaceShape.cacheIsFile && !writes ? [0, 2, 5] : [2, 5];
  return { args: [mode, '--dir', copy, ...command], check: { exits, named: [], workspace: copy, strict: true } };
}
