import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathError } from '../output-path.js';

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
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw pathError(error, '--gitignore', file, 'read');
  }
  if (text.split(/\r?\n/).some((line) => IGNORING.has(line.trim()))) return GitignoreStatus.already_ignored;
  if (!add) return GitignoreStatus.not_ignored;
  try {
    appendFileSync(file, `${text === '' || text.endsWith('\n') ? '' : '\n'}${ENTRY}\n`);
  } catch (error) {
    throw pathError(error, '--gitignore', file);
  }
  return GitignoreStatus.added;
}
