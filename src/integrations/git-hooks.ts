import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { FileAccess, writeFileAtomic } from '../artifacts/atomic-write.js';
import { invalidInput } from '../errors.js';
import { runGit } from '../probes/git.js';
import { shellWord } from './claude-code/setup.js';
import { currentInvocation, portableInvocation } from './invocation.js';

/**
 * `baton setup git-hooks`: a `pre-commit` hook that runs `baton guard --staged` and refuses a commit
 * staging a path another live holder's claim reserves (exit 4 of the guard), listing them. It goes
 * where git looks for hooks (`core.hooksPath`, else the repository's `hooks/`). A pre-commit hook
 * already there is kept: renamed to `pre-commit.baton-chained`, and Baton's hook runs it first. A
 * second run changes nothing. Baton failing (not installed, a broken `.baton/`) never refuses a
 * commit: one line on stderr. `BATON_GUARD=off git commit …` skips the check, and `baton guard`
 * records the skip (guard.skipped).
 */
export const HOOK_NAME = 'pre-commit';
export const CHAINED_NAME = 'pre-commit.baton-chained';
const MARKER = '# baton: pre-commit guard';

export interface GitHooksResult {
  files: string[];
  changed: boolean;
  hooks: { event: string; command: string }[];
  warnings: string[];
  notes?: string[];
}

function git(dir: string, args: readonly string[]): string | null {
  const r = runGit(dir, args);
  return r !== null && r.status === 0 ? r.stdout.trim() : null;
}

/** Where git runs hooks from for this repository: `core.hooksPath` (relative: to the top level), else `<common dir>/hooks`. */
function hooksDirOf(workspace: string): { dir: string; inGitDir: boolean } {
  const top = git(workspace, ['rev-parse', '--show-toplevel']);
  const common = git(workspace, ['rev-parse', '--git-common-dir']);
  if (top === null || common === null) throw invalidInput(`git-hooks needs a git repository, and ${workspace} is not in one (git init first)`, 'client');
  const commonDir = resolve(workspace, common);
  const configured = git(workspace, ['config', '--get', 'core.hooksPath']);
  const dir = configured !== null && configured !== '' ? resolve(top, configured) : join(commonDir, 'hooks');
  const rel = relative(commonDir, dir);
  return { dir, inGitDir: rel === '' || (!rel.startsWith('..') && !isAbsolute(rel)) };
}

/** The hook's text: the chained hook first, then the guard; only the guard's exit 4 refuses the commit. */
export function preCommitScript(words: readonly string[]): string {
  const baton = words.map(shellWord).join(' ');
  return [
    '#!/bin/sh',
    `${MARKER} (written by \`baton setup git-hooks\`; re-running it rewrites this file)`,
    '# Refuses a commit staging a path reserved by another live holder; BATON_GUARD=off skips it (recorded).',
    'hooks_dir=$(dirname "$0")',
    `if [ -x "$hooks_dir/${CHAINED_NAME}" ]; then`,
    `  "$hooks_dir/${CHAINED_NAME}" "$@" || exit $?`,
    'fi',
    `${baton} guard --staged --human`,
    'status=$?',
    'if [ "$status" -eq 4 ]; then',
    '  echo "baton: commit refused: the paths above are reserved by another live holder" >&2',
    '  exit 1',
    'fi',
    'if [ "$status" -ne 0 ]; then',
    '  echo "baton: the reservation guard could not run (exit $status); the commit is not checked" >&2',
    'fi',
    'exit 0',
    '',
  ].join('\n');
}

const isOurs = (path: string): boolean => {
  try {
    return readFileSync(path, 'utf8').includes(MARKER);
  } catch {
    return false;
  }
};

const exists = (path: string): boolean => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

/** Installs (or updates) the pre-commit guard of the repository around `workspace`. */
export function setupGitHooks(workspace: string, env: NodeJS.ProcessEnv = process.env): GitHooksResult {
  const { dir, inGitDir } = hooksDirOf(workspace);
  // A hooks folder inside the repository's git folder is this machine's: the absolute baton running
  // now. A configured folder may be committed and shared: the portable command.
  const invocation = inGitDir ? currentInvocation() : { words: portableInvocation(env).words, warning: undefined };
  const script = preCommitScript(invocation.words);
  const hook = join(dir, HOOK_NAME);
  const chained = join(dir, CHAINED_NAME);
  const shown = (path: string): string => {
    const rel = relative(workspace, path);
    return rel.startsWith('..') || isAbsolute(rel) ? path : rel.split(sep).join('/');
  };
  const notes: string[] = [];
  let changed = false;
  if (exists(hook) && !isOurs(hook)) {
    if (exists(chained))
      throw invalidInput(`${shown(hook)} is not Baton's and ${shown(chained)} exists already; move one of them, then run setup again`, 'client');
    renameSync(hook, chained);
    notes.push(`your pre-commit hook was kept: renamed to ${shown(chained)}; Baton's hook runs it first`);
    changed = true;
  }
  const current = existsSync(hook) ? readFileSync(hook, 'utf8') : undefined;
  if (current !== script) {
    mkdirSync(dir, { recursive: true });
    writeFileAtomic(dir, hook, script, FileAccess.executable);
    changed = true;
  }
  const files = [shown(hook), ...(exists(chained) ? [shown(chained)] : [])];
  const command = `${invocation.words.map(shellWord).join(' ')} guard --staged`;
  return {
    files,
    changed,
    hooks: [{ event: HOOK_NAME, command }],
    warnings: invocation.warning !== undefined ? [invocation.warning] : [],
    ...(notes.length > 0 ? { notes } : {}),
  };
}
