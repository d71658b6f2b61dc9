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
 *
 * With `anchor`, a `post-commit` hook too, installed the same way (an existing one kept as
 * `post-commit.baton-chained` and run first): `baton log anchor --quiet || true` records the log's
 * head on `refs/baton/anchors` after each commit; a failure never fails the commit.
 */
export const HOOK_NAME = 'pre-commit';
export const CHAINED_NAME = 'pre-commit.baton-chained';
const MARKER = '# baton: pre-commit guard';
export const ANCHOR_HOOK_NAME = 'post-commit';
export const ANCHOR_CHAINED_NAME = 'post-commit.baton-chained';
const ANCHOR_MARKER = '# baton: post-commit anchor';

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

/** The post-commit hook's text: the chained hook first, then the anchor; nothing it does fails the commit. */
export function postCommitScript(words: readonly string[]): string {
  const baton = words.map(shellWord).join(' ');
  return [
    '#!/bin/sh',
    `${ANCHOR_MARKER} (written by \`baton setup git-hooks --anchor\`; re-running it rewrites this file)`,
    "# Records the Baton log's head on refs/baton/anchors after each commit (baton log verify checks it).",
    'hooks_dir=$(dirname "$0")',
    `if [ -x "$hooks_dir/${ANCHOR_CHAINED_NAME}" ]; then`,
    `  "$hooks_dir/${ANCHOR_CHAINED_NAME}" "$@"`,
    'fi',
    `${baton} log anchor --quiet || true`,
    'exit 0',
    '',
  ].join('\n');
}

const isOurs = (path: string, marker: string): boolean => {
  try {
    return readFileSync(path, 'utf8').includes(marker);
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

interface HookFile {
  name: string;
  chained: string;
  marker: string;
  script: string;
}

/** Writes one hook (keeping a foreign one as its chained hook); whether anything changed, and the files it owns. */
function installHook(dir: string, hookFile: HookFile, shown: (path: string) => string, notes: string[]): { changed: boolean; files: string[] } {
  const hook = join(dir, hookFile.name);
  const chained = join(dir, hookFile.chained);
  let changed = false;
  if (exists(hook) && !isOurs(hook, hookFile.marker)) {
    if (exists(chained))
      throw invalidInput(`${shown(hook)} is not Baton's and ${shown(chained)} exists already; move one of them, then run setup again`, 'client');
    renameSync(hook, chained);
    notes.push(`your ${hookFile.name} hook was kept: renamed to ${shown(chained)}; Baton's hook runs it first`);
    changed = true;
  }
  const current = existsSync(hook) ? readFileSync(hook, 'utf8') : undefined;
  if (current !== hookFile.script) {
    mkdirSync(dir, { recursive: true });
    writeFileAtomic(dir, hook, hookFile.script, FileAccess.executable);
    changed = true;
  }
  return { changed, files: [shown(hook), ...(exists(chained) ? [shown(chained)] : [])] };
}

export interface GitHooksOptions {
  /** Also a post-commit hook anchoring the log's head after each commit (`baton log anchor`). */
  anchor?: boolean;
}

/** Installs (or updates) the pre-commit guard of the repository around `workspace`, and with `anchor` the post-commit anchor. */
export function setupGitHooks(workspace: string, env: NodeJS.ProcessEnv = process.env, options: GitHooksOptions = {}): GitHooksResult {
  const { dir, inGitDir } = hooksDirOf(workspace);
  // A hooks folder inside the repository's git folder is this machine's: the absolute baton running
  // now. A configured folder may be committed and shared: the portable command.
  const invocation = inGitDir ? currentInvocation() : { words: portableInvocation(env).words, warning: undefined };
  const shown = (path: string): string => {
    const rel = relative(workspace, path);
    return rel.startsWith('..') || isAbsolute(rel) ? path : rel.split(sep).join('/');
  };
  const notes: string[] = [];
  const baton = invocation.words.map(shellWord).join(' ');
  const guard = installHook(dir, { name: HOOK_NAME, chained: CHAINED_NAME, marker: MARKER, script: preCommitScript(invocation.words) }, shown, notes);
  const hooks = [{ event: HOOK_NAME, command: `${baton} guard --staged` }];
  let anchor: { changed: boolean; files: string[] } = { changed: false, files: [] };
  if (options.anchor === true) {
    const script = postCommitScript(invocation.words);
    anchor = installHook(dir, { name: ANCHOR_HOOK_NAME, chained: ANCHOR_CHAINED_NAME, marker: ANCHOR_MARKER, script }, shown, notes);
    hooks.push({ event: ANCHOR_HOOK_NAME, command: `${baton} log anchor --quiet` });
  }
  return {
    files: [...guard.files, ...anchor.files],
    changed: guard.changed || anchor.changed,
    hooks,
    warnings: invocation.warning !== undefined ? [invocation.warning] : [],
    ...(notes.length > 0 ? { notes } : {}),
  };
}
