import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathError } from '../output-path.js';
import { appendFileNoFollow, assertNoLinkBelow, readFileNoFollow, UNSAFE_PATH_CODE } from '../../artifacts/owned-paths.js';
import { isBatonError } from '../../errors.js';

/** What `init` did about `.baton/` in the workspace's `.gitignore`. */
export const GitignoreStatus = { added: 'added', already_ignored: 'already_ignored', not_ignored: 'not_ignored' } as const;
export type GitignoreStatus = (typeof GitignoreStatus)[keyof typeof GitignoreStatus];

const ENTRY = '.baton/';
/** The spellings of a `.gitignore` line that keep `.baton/` out of `git status`. */
const IGNORING = new Set(['.baton', '.baton/', '/.baton', '/.baton/', '.baton/*', '/.baton/*']);

/**
 * `.baton/` holds private, machine-local state (a log other clones do not share), so it belongs
 * in `.gitignore`. `init` only says so unless asked (`--gitignore`): the user's `.gitignore` is
 * theirs, and a tool that edits it unasked surprises.
 */
export function gitignoreBaton(workspace: string, add: boolean): GitignoreStatus {
  const file = join(workspace, '.gitignore');
  let text = '';
  try {
    // Never through a link: the same lstat check as every file Baton writes (owned-paths.ts).
    // Only asked whether it ignores `.baton/` (no --gitignore), a linked one is read: nothing is written.
    if (add) assertNoLinkBelow(workspace, file);
    text = (add ? readFileNoFollow(file) : readFollowing(file))?.toString('utf8') ?? '';
  } catch (error) {
    if (isBatonError(error) && error.code === UNSAFE_PATH_CODE) throw error;
    throw pathError(error, '--gitignore', file, 'read');
  }
  if (text.split(/\r?\n/).some((line) => IGNORING.has(line.trim()))) return GitignoreStatus.already_ignored;
  if (!add) return GitignoreStatus.not_ignored;
  try {
    appendFileNoFollow(workspace, file, `${text === '' || text.endsWith('\n') ? '' : '\n'}${ENTRY}\n`);
  } catch (error) {
    if (isBatonError(error) && error.code === UNSAFE_PATH_CODE) throw error;
    throw pathError(error, '--gitignore', file);
  }
  return GitignoreStatus.added;
}

function readFollowing(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR') return undefined;
    throw error;
  }
}
