import { holdsClaims } from '../coordination/liveness.js';
import { currentClaim, holderOf, type Holder } from './claim-holder.js';
import { compileCodePath } from './code-paths.js';
import { isDone } from './evidence.js';
import type { WorkUnitsState, WuRecord } from './records.js';
import { recordsNotDone } from './lazy-records.js';

/**
 * File reservations: a live claim reserves its WU's `code_paths` and the claim's own `paths`
 * (`wu claim --paths`) for its holder. Only a live holder reserves (a lapsed, ended or unknown one
 * does not: its WU may be taken over, its files edited); a done WU reserves nothing; a sessionless
 * claim of an older log has no holder and reserves nothing. Globs match as code paths do
 * (code-paths.ts: picomatch, POSIX, dotfiles; a plain path is itself and everything below it).
 * Pure: a function of the fold and `now`.
 */
export interface Reservation {
  wu_id: string;
  /** The code path or glob that matched. */
  glob: string;
  holder: Holder;
}

/** The globs a WU's current claim reserves: its code_paths, then the claim's own paths. */
export function reservedGlobs(wu: WuRecord): string[] {
  const claim = currentClaim(wu);
  if (claim === null) return [];
  return [...new Set([...(wu.def.code_paths ?? []), ...(claim.paths ?? [])])];
}

/** Every live reservation of the fold: one entry per WU with a live holder and something reserved. */
export function liveReservations(fold: WorkUnitsState, now: string): { wu_id: string; globs: string[]; holder: Holder }[] {
  const live: { wu_id: string; globs: string[]; holder: Holder }[] = [];
  for (const wu of recordsNotDone(fold)) {
    if (currentClaim(wu) === null || isDone(wu)) continue;
    const globs = reservedGlobs(wu);
    if (globs.length === 0) continue;
    const holder = holderOf(fold, wu, now);
    if (holder === null || !holdsClaims(holder.liveness)) continue;
    live.push({ wu_id: wu.wu_id, globs, holder });
  }
  return live.sort((a, b) => (a.wu_id < b.wu_id ? -1 : a.wu_id > b.wu_id ? 1 : 0));
}

/** The live claims that reserve `path` (repository-relative, POSIX), each with the first of its globs that matches. */
export function reservationsOf(path: string, live: readonly { wu_id: string; globs: string[]; holder: Holder }[]): Reservation[] {
  const found: Reservation[] = [];
  for (const entry of live) {
    const glob = entry.globs.find((g) => compileCodePath(g)(path));
    if (glob !== undefined) found.push({ wu_id: entry.wu_id, glob, holder: entry.holder });
  }
  return found;
}

/** `reservationsOf` from the fold itself, for one path. */
export function reservationsFor(fold: WorkUnitsState, path: string, now: string): Reservation[] {
  return reservationsOf(path, liveReservations(fold, now));
}

/**
 * A path relative to the workspace, as its repository sees it: a path inside the worktree of a
 * current claim (`worktrees/l1-wu-1/lib/app.js`) is that worktree's `lib/app.js`, since the worktree is a
 * checkout of the same repository. Other paths are unchanged.
 */
export function repositoryPath(fold: WorkUnitsState, workspacePath: string): string {
  for (const wu of Object.values(fold.wus)) {
    const worktree = currentClaim(wu)?.worktree_path?.replace(/\/+$/, '');
    if (worktree === undefined || worktree === '' || worktree === '.' || worktree.startsWith('/')) continue;
    if (workspacePath.startsWith(`${worktree}/`)) return workspacePath.slice(worktree.length + 1);
  }
  return workspacePath;
}

/** The holder's name in a message and a signal's `--to`: its session, or its agent identity. */
export function holderName(holder: Holder): string {
  return holder.session ?? holder.identity ?? 'unknown';
}
