import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { CommitFact, RepositoryFacts, WorktreeFact } from '../../projections/audit/types.js';
import { gitTopLevel, runGit } from '../probes/git.js';

/**
 * What git shows of the repository around the workspace, in four processes however many WUs the
 * log holds: the top level, the worktrees (`worktree list --porcelain`), the branches and
 * remote-tracking branches with their tips (`for-each-ref`), and every commit they and the
 * worktrees' HEADs reach with the paths each changed (one `git log`). Null outside a repository.
 */
export function gatherRepositoryFacts(workspace: string, integrationBranch: string | undefined): RepositoryFacts | null {
  const top = gitTopLevel(workspace);
  if (top === null) return null;
  const worktrees = listWorktrees(top, realOr(workspace));
  const refs = listRefs(top);
  const heads = [...new Set(worktrees.filter((w) => !w.prunable && w.head !== null).map((w) => w.head!))];
  return {
    top_level: top,
    integration: integrationOf(refs, integrationBranch),
    branches: refs.branches,
    worktrees,
    commits: listCommits(top, heads),
  };
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function listWorktrees(top: string, workspace: string): WorktreeFact[] {
  const r = runGit(top, ['worktree', 'list', '--porcelain']);
  if (r === null || r.status !== 0) return [];
  const out: WorktreeFact[] = [];
  let current: WorktreeFact | null = null;
  for (const line of r.stdout.split('\n')) {
    if (line.startsWith('worktree ')) {
      const path = realOr(resolve(line.slice('worktree '.length)));
      const rel = relative(workspace, path);
      const inside = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
      current = { path, relative: rel === '' ? '.' : inside ? rel.split(sep).join('/') : null, head: null, branch: null, prunable: false };
      out.push(current);
    } else if (current !== null && line.startsWith('HEAD ')) current.head = line.slice('HEAD '.length);
    else if (current !== null && line.startsWith('branch ')) current.branch = line.slice('branch '.length).replace(/^refs\/heads\//, '');
    else if (current !== null && line.startsWith('prunable')) current.prunable = true;
  }
  return out;
}

interface Refs {
  branches: Record<string, string>;
  remotes: Record<string, string>;
  /** A remote's HEAD → the remote-tracking branch it names (`origin/main`), origin's first. */
  remoteHead: string | null;
}

function listRefs(top: string): Refs {
  const refs: Refs = { branches: {}, remotes: {}, remoteHead: null };
  const r = runGit(top, ['for-each-ref', '--format=%(refname)%00%(objectname)%00%(symref)', 'refs/heads/', 'refs/remotes/']);
  if (r === null || r.status !== 0) return refs;
  const heads: string[] = [];
  for (const line of r.stdout.split('\n')) {
    const [name, id, symref] = line.split('\0');
    if (name === undefined || id === undefined || id === '') continue;
    if (name.startsWith('refs/heads/')) set(refs.branches, name.slice('refs/heads/'.length), id);
    else if (name.startsWith('refs/remotes/') && name.endsWith('/HEAD') && symref?.startsWith('refs/remotes/'))
      heads.push(symref.slice('refs/remotes/'.length));
    else if (name.startsWith('refs/remotes/')) set(refs.remotes, name.slice('refs/remotes/'.length), id);
  }
  refs.remoteHead = heads.find((h) => h.startsWith('origin/')) ?? heads[0] ?? null;
  return refs;
}

function set(record: Record<string, string>, key: string, value: string): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The configured branch (a local branch, else a remote-tracking one of that name), else the remote HEAD's, else `main`. */
function integrationOf(refs: Refs, configured: string | undefined): RepositoryFacts['integration'] {
  const name = configured ?? refs.remoteHead ?? 'main';
  if (Object.hasOwn(refs.branches, name)) return { name, ref: `refs/heads/${name}`, commit: refs.branches[name]! };
  if (Object.hasOwn(refs.remotes, name)) return { name, ref: `refs/remotes/${name}`, commit: refs.remotes[name]! };
  return { name, ref: null, commit: null };
}

const RECORD = '\x1e';
const FIELD = '\x1f';

/** Every commit the branches, the remote-tracking branches and the worktrees' HEADs reach: parents, time, subject, changed paths. */
function listCommits(top: string, heads: readonly string[]): CommitFact[] {
  const args = [
    '-c',
    'core.quotePath=off',
    'log',
    '--branches',
    '--remotes',
    ...heads,
    '--format=%x1e%H%x1f%P%x1f%ct%x1f%s',
    '--name-only',
    '--no-renames',
    '-z',
    '--',
  ];
  const r = runGit(top, args);
  if (r === null || r.status !== 0) return [];
  const commits: CommitFact[] = [];
  for (const record of r.stdout.split(RECORD)) {
    const end = record.indexOf('\0');
    if (end < 0) continue;
    const [id, parents, seconds, subject] = record.slice(0, end).split(FIELD);
    if (id === undefined || seconds === undefined) continue;
    const paths = record
      .slice(end + 1)
      .replace(/^\n/, '')
      .split('\0')
      .filter((p) => p !== '');
    commits.push({
      id,
      parents: parents === undefined || parents === '' ? [] : parents.split(' '),
      at: new Date(Number(seconds) * 1000).toISOString(),
      subject: subject ?? '',
      paths,
    });
  }
  return commits;
}
