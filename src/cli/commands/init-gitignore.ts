import { join } from 'node:path';
import { BATON_DIR_NAME } from '../../store/jsonl/layout.js';
import { INPUT_LIMITS, InputRefused, readInputFile } from '../../input/bounded-input.js';
import { pathError } from '../output-path.js';
import { appendFileNoFollow, assertNoLinkBelow, readFileNoFollow, UNSAFE_PATH_CODE } from '../../artifacts/owned-paths.js';
import { isBatonError } from '../../errors.js';

/** What `init` did about `.baton/` in the workspace's `.gitignore`. */
export const GitignoreStatus = { added: 'added', already_ignored: 'already_ignored', not_ignored: 'not_ignored' } as const;
export type GitignoreStatus = (typeof GitignoreStatus)[keyof typeof GitignoreStatus];

const ENTRY = `${BATON_DIR_NAME}/`;
/** The spellings of a `.gitignore` line that keep `.baton/` out of `git status`. */
const IGNORING = new Set([BATON_DIR_NAME, `${BATON_DIR_NAME}/`, `/${BATON_DIR_NAME}`, `/${BATON_DIR_NAME}/`, `${BATON_DIR_NAME}/*`, `/${BATON_DIR_NAME}/*`]);

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
    if ((isBatonError(error) && error.code === UNSAFE_PATH_CODE) || error instanceof InputRefused) throw error;
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

/** A folder there reads as no file; a pipe or a device is refused, never read (bounded-input.ts). */
function readFollowing(file: string): Buffer | undefined {
  try {
    return readInputFile(file, '--gitignore', INPUT_LIMITS.gitignore, { namedPipe: 'refuse' });
  } catch (error) {
    if (error instanceof InputRefused && (error.details?.['errno'] === 'ENOENT' || error.details?.['kind'] === 'folder')) return undefined;
    throw error;
  }
}
