import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { isHolder, type ClaimActor } from '../../deciders/claim-holder.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import { liveReservations, repositoryPath, reservationsOf, type Reservation } from '../../projections/work-units/reservations.js';
import { initWorkUnits, type WorkUnitsState } from '../../projections/work-units/state.js';
import type { AppContext } from '../app/context.js';
import { storeExists } from '../store/jsonl/layout.js';
import { runProjection } from '../store/projection-runner.js';
import { checkoutAround } from '../workspace.js';

/**
 * The I/O half of file reservations (the rule is projections/work-units/reservations.ts): the
 * work-unit fold the guards read, and a path as its repository names it. What `baton guard`, the
 * Claude Code PreToolUse hook and the MCP `check_paths` tool share; it loads no zod, so the hook
 * that runs before every edit stays within its budget.
 */
export interface PathVerdict {
  /** The path as given. */
  path: string;
  /** Repository-relative POSIX path; null when it lies outside the workspace (nothing reserves it). */
  repo_path: string | null;
  status: 'free' | 'mine' | 'held';
  reservations: (Reservation & { mine: boolean })[];
}

/** The work-unit fold the guards read: empty in a folder with no Baton workspace (nothing is reserved there). */
export async function loadReservationFold(app: AppContext): Promise<WorkUnitsState> {
  const workspace = await app.workspace();
  if (!storeExists(workspace, app.env)) return initWorkUnits();
  const run = await runProjection(await app.store(), workUnitsStateProjection, { catalog: await app.catalog(), now: app.now, cacheDir: await app.cacheDir() });
  return run.state;
}

/** The path with its nearest existing folder resolved through links (a new file does not exist yet). */
function realish(path: string): string {
  let dir = path;
  const rest: string[] = [];
  while (!existsSync(dir)) {
    const parent = dirname(dir);
    if (parent === dir) return path;
    rest.unshift(basename(dir));
    dir = parent;
  }
  try {
    return join(realpathSync(dir), ...rest);
  } catch {
    return path;
  }
}

const inside = (root: string, path: string): string | null => {
  const rel = relative(root, path);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return null;
  return rel.split(sep).join('/');
};

/**
 * `path` (absolute, or relative to `base`) as the repository names it: relative to its checkout's
 * top level when that checkout is the workspace or one of its linked worktrees, else relative to the
 * workspace (a claim's worktree folder there stands for the repository: repositoryPath); null
 * outside both.
 */
export function repositoryPathOf(fold: WorkUnitsState, workspace: string, base: string, path: string): string | null {
  const absolute = realish(resolve(base, path));
  const root = realish(workspace);
  const checkout = checkoutAround(dirname(absolute));
  if (checkout !== null && realish(checkout.main) === root) {
    const inCheckout = inside(realish(checkout.topLevel), absolute);
    if (inCheckout !== null) return inCheckout;
  }
  const inWorkspace = inside(root, absolute);
  return inWorkspace === null ? null : repositoryPath(fold, inWorkspace);
}

/** Where relative paths start: `cwd` when it lies in the workspace (or is it), else the workspace itself (`--dir` from elsewhere). */
export function relativeBase(workspace: string, cwd: string | undefined): string {
  if (cwd === undefined) return workspace;
  const root = realish(workspace);
  const here = realish(cwd);
  return here === root || inside(root, here) !== null ? cwd : workspace;
}

/** Who may write a reserved path: the candidates acting (a session, an agent identity); any of them holding it is enough. */
export function verdictFor(
  fold: WorkUnitsState,
  live: ReturnType<typeof liveReservations>,
  path: string,
  repoPath: string | null,
  acting: readonly ClaimActor[],
): PathVerdict {
  if (repoPath === null) return { path, repo_path: null, status: 'free', reservations: [] };
  const found = reservationsOf(repoPath, live).map((r) => ({ ...r, mine: acting.some((who) => isHolder(fold, r.holder, who)) }));
  const status = found.length === 0 ? 'free' : found.every((r) => r.mine) ? 'mine' : 'held';
  return { path, repo_path: repoPath, status, reservations: found };
}

export { liveReservations };
