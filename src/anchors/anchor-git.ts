import { createRequire } from 'node:module';
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import { BatonError, ErrorCode, invalidField } from '../errors.js';
import { mayBeInGitRepository } from '../probes/git.js';
import { ANCHOR_REF, parseRawCommit, signatureStatusOf, splitCatFileBatch, type RawCommit, type SignatureStatus } from './anchor-message.js';

/**
 * The anchors' git plumbing: every call is a `git` process with an argument array (never a shell).
 * An anchor is a commit on `refs/baton/anchors` whose tree is git's empty tree and whose parent is
 * the anchor before it; the ref moves by compare-and-swap (`git update-ref REF NEW OLD`), so two
 * anchors written at once never lose one. Signing is git's own (`commit-tree -S`: whatever
 * `gpg.format` and `user.signingkey` say), and so is checking a signature (`%G?`, what
 * `git verify-commit` decides).
 */
let childProcess: typeof import('node:child_process') | undefined;

interface GitRun {
  status: number;
  stdout: Buffer;
  stderr: string;
}

interface GitOptions {
  input?: string;
  env?: Record<string, string>;
  /** Signing may ask an agent or a program: it gets longer than plumbing. */
  timeoutMs?: number;
}

function git(cwd: string, args: readonly string[], options: GitOptions = {}): GitRun {
  childProcess ??= createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
  const result = childProcess.spawnSync('git', args as string[], {
    cwd,
    input: options.input ?? '',
    maxBuffer: 256 * 1024 * 1024,
    timeout: options.timeoutMs ?? 60_000,
    env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', ...options.env },
  });
  if (result.error !== undefined || result.status === null) {
    const why = result.error?.message ?? `ended by ${String(result.signal)}`;
    throw new BatonError(ErrorCode.UNEXPECTED, `git ${args[0]} could not run: ${why}`);
  }
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.toString('utf8').trim() };
}

function gitText(cwd: string, args: readonly string[], options: GitOptions = {}): string {
  const run = git(cwd, args, options);
  if (run.status !== 0) throw new BatonError(ErrorCode.UNEXPECTED, `git ${args.join(' ')} failed (exit ${run.status}): ${run.stderr}`);
  return run.stdout.toString('utf8').trim();
}

export interface AnchorRepository {
  /** The repository's top level (a linked worktree's main checkout shares its refs). */
  top: string;
  /** The workspace folder relative to the top level (`.` for the top level itself), as anchors name it. */
  workspace: string;
}

/** The git repository around the workspace, or null when it is in none (or git is not installed). */
export function anchorRepositoryOf(workspace: string, env: NodeJS.ProcessEnv = process.env): AnchorRepository | null {
  if (!mayBeInGitRepository(workspace, env)) return null;
  let run: GitRun;
  try {
    run = git(workspace, ['rev-parse', '--show-toplevel']);
  } catch {
    return null;
  }
  if (run.status !== 0) return null;
  const top = run.stdout.toString('utf8').trim();
  if (top === '') return null;
  let real = workspace;
  try {
    real = realpathSync(workspace);
  } catch {
    // the workspace as given
  }
  const rel = relative(top, real);
  if (rel.startsWith('..') || isAbsolute(rel)) return null;
  return { top, workspace: rel === '' ? '.' : rel.split(sep).join('/') };
}

/** The commit `refs/baton/anchors` points at, or null when there is none. */
export function anchorTip(top: string): string | null {
  const run = git(top, ['rev-parse', '-q', '--verify', `${ANCHOR_REF}^{commit}`]);
  const id = run.stdout.toString('utf8').trim();
  return run.status === 0 && id !== '' ? id : null;
}

export interface AnchorCommit extends RawCommit {
  commit: string;
}

/** The commits of the anchor chain from `tip`, newest first (at most `limit`). */
export function readAnchorChain(top: string, tip: string, limit?: number): AnchorCommit[] {
  const ids = gitText(top, ['rev-list', ...(limit !== undefined ? [`--max-count=${limit}`] : []), tip, '--'])
    .split('\n')
    .filter((id) => id !== '');
  if (ids.length === 0) return [];
  const run = git(top, ['cat-file', '--batch'], { input: `${ids.join('\n')}\n` });
  if (run.status !== 0) throw new BatonError(ErrorCode.UNEXPECTED, `git cat-file --batch failed (exit ${run.status}): ${run.stderr}`);
  const byId = new Map(splitCatFileBatch(run.stdout).map((object) => [object.id, object]));
  return ids.flatMap((id) => {
    const object = byId.get(id);
    return object !== undefined && object.type === 'commit' ? [{ commit: id, ...parseRawCommit(object.content.toString('utf8')) }] : [];
  });
}

const emptyTrees = new Map<string, string>();

/** git's empty tree in this repository (its id depends on the repository's hash). */
function emptyTree(top: string): string {
  let tree = emptyTrees.get(top);
  if (tree === undefined) {
    tree = gitText(top, ['hash-object', '-t', 'tree', '-w', '--stdin']);
    emptyTrees.set(top, tree);
  }
  return tree;
}

/** Who an anchor commit is by when git knows no identity (no user.name / user.email anywhere). */
const FALLBACK_IDENTITY = {
  GIT_AUTHOR_NAME: 'Baton',
  GIT_AUTHOR_EMAIL: 'baton@localhost',
  GIT_COMMITTER_NAME: 'Baton',
  GIT_COMMITTER_EMAIL: 'baton@localhost',
};

/** Writes an anchor commit (not yet on the ref) and returns its id; `sign`: git signs it as configured. */
export function writeAnchorCommit(top: string, message: string, parent: string | null, sign: boolean): string {
  const args = ['commit-tree', emptyTree(top), ...(parent !== null ? ['-p', parent] : []), ...(sign ? ['-S'] : []), '-F', '-'];
  let run = git(top, args, { input: message, timeoutMs: 120_000 });
  if (run.status !== 0 && /identity unknown|unable to auto-detect|empty ident/i.test(run.stderr)) {
    run = git(top, args, { input: message, timeoutMs: 120_000, env: FALLBACK_IDENTITY });
  }
  if (run.status !== 0) {
    if (sign) {
      const why = run.stderr.split('\n').slice(-3).join(' ');
      throw invalidField(`git could not sign the anchor (git's signing is configured by gpg.format and user.signingkey): ${why}`, 'sign');
    }
    throw new BatonError(ErrorCode.UNEXPECTED, `git commit-tree failed (exit ${run.status}): ${run.stderr}`);
  }
  return run.stdout.toString('utf8').trim();
}

/**
 * Moves `refs/baton/anchors` from `expected` (null: the ref must not exist) to `commit`. False when
 * another process moved it first (or holds its lock): the caller reads the tip again and retries.
 */
export function moveAnchorRef(top: string, commit: string, expected: string | null): boolean {
  const run = git(top, ['update-ref', '-m', 'baton log anchor', ANCHOR_REF, commit, expected ?? '']);
  if (run.status === 0) return true;
  if (/but expected|already exists|cannot lock ref|unable to create .*\.lock|file exists/i.test(run.stderr)) return false;
  throw new BatonError(ErrorCode.UNEXPECTED, `git update-ref ${ANCHOR_REF} failed (exit ${run.status}): ${run.stderr}`);
}

export interface SignatureCheck {
  status: SignatureStatus;
  /** The key's fingerprint or id, and the signer (an ssh principal, a gpg user id), when git names them. */
  key?: string;
  signer?: string;
  /** Why git could not check it (e.g. no gpg.ssh.allowedSignersFile), when it could not. */
  detail?: string;
}

/** git's verdict on each signed commit, in one `git log --no-walk --stdin` (the check `git verify-commit` makes). */
export function checkSignatures(top: string, commits: readonly string[]): Map<string, SignatureCheck> {
  const checks = new Map<string, SignatureCheck>();
  if (commits.length === 0) return checks;
  const run = git(top, ['log', '--no-walk=unsorted', '--stdin', '--format=%H%x1f%G?%x1f%GK%x1f%GS%x1e'], {
    input: `${commits.join('\n')}\n`,
    timeoutMs: 300_000,
  });
  if (run.status !== 0) throw new BatonError(ErrorCode.UNEXPECTED, `git log (signatures) failed (exit ${run.status}): ${run.stderr}`);
  const detail = run.stderr
    .split('\n')
    .map((line) => line.replace(/^(error|warning|fatal): /, '').trim())
    .find((line) => line !== '');
  for (const record of run.stdout.toString('utf8').split('\x1e')) {
    const [id, code, key, signer] = record.replace(/^\n+/, '').split('\x1f');
    if (id === undefined || id === '' || code === undefined) continue;
    const status = signatureStatusOf(code);
    checks.set(id, {
      status,
      ...(key ? { key } : {}),
      ...(signer ? { signer } : {}),
      ...(status === 'unverifiable' && detail !== undefined ? { detail } : {}),
    });
  }
  return checks;
}
