import type { CommitFact, RepositoryFacts } from './types.js';

/**
 * Reachability over the commits git showed (RepositoryFacts.commits): what a branch holds that the
 * integration branch does not, and the integration branch's own line of history. Walks stop where
 * the base begins and their answers are kept per tip, and each commit's time is parsed once, so a
 * thousand commits and a few hundred WUs cost little more than one pass over the commits.
 */
export class CommitGraph {
  private readonly byId = new Map<string, CommitFact>();
  private readonly times = new Map<string, number>();
  private readonly reach = new Map<string, ReadonlySet<string>>();
  private readonly lines = new Map<string, CommitFact[]>();
  /** Newest first (by time, then id): `since` cuts it with a binary search. */
  private readonly newestFirst: CommitFact[];

  constructor(readonly facts: RepositoryFacts) {
    for (const commit of facts.commits) {
      this.byId.set(commit.id, commit);
      this.times.set(commit.id, Date.parse(commit.at));
    }
    this.newestFirst = byTime([...this.byId.values()], this.times).reverse();
  }

  /** The commit's time in ms since the epoch. */
  time(commit: CommitFact): number {
    return this.times.get(commit.id)!;
  }

  /** Every commit made strictly after `ms`, newest first. */
  since(ms: number): readonly CommitFact[] {
    let lo = 0;
    let hi = this.newestFirst.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.time(this.newestFirst[mid]!) > ms) lo = mid + 1;
      else hi = mid;
    }
    return this.newestFirst.slice(0, lo);
  }

  /** Every commit reachable from `tip` (itself included); empty for a tip git did not show. */
  ancestors(tip: string | null): ReadonlySet<string> {
    if (tip === null) return EMPTY;
    const known = this.reach.get(tip);
    if (known !== undefined) return known;
    const seen = this.walk([tip], EMPTY);
    this.reach.set(tip, seen);
    return seen;
  }

  /** The commits of `tip`'s first-parent line, newest first: a branch's own history, merges in it included. */
  firstParentLine(tip: string | null): readonly CommitFact[] {
    if (tip === null) return [];
    const known = this.lines.get(tip);
    if (known !== undefined) return known;
    const line: CommitFact[] = [];
    const seen = new Set<string>();
    for (let id: string | null = tip; id !== null && !seen.has(id);) {
      const commit = this.byId.get(id);
      if (commit === undefined) break;
      seen.add(id);
      line.push(commit);
      id = commit.parents[0] ?? null;
    }
    this.lines.set(tip, line);
    return line;
  }

  /** The commits reachable from any of `tips` and not from `base`, oldest first (by time, then id). */
  only(tips: readonly (string | null)[], base: ReadonlySet<string>): CommitFact[] {
    const ids = this.walk(
      tips.filter((t): t is string => t !== null),
      base,
    );
    return byTime(
      [...ids].map((id) => this.byId.get(id)!),
      this.times,
    );
  }

  /** The commits reachable from `tips`, not entering `stop` (a walk that meets the base goes no further). */
  private walk(tips: readonly string[], stop: ReadonlySet<string>): Set<string> {
    const seen = new Set<string>();
    const stack = [...tips];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (seen.has(id) || stop.has(id)) continue;
      const commit = this.byId.get(id);
      if (commit === undefined) continue;
      seen.add(id);
      for (const parent of commit.parents) if (!seen.has(parent) && !stop.has(parent)) stack.push(parent);
    }
    return seen;
  }
}

const EMPTY: ReadonlySet<string> = new Set();

/** Oldest first; commits of the same millisecond by id, so the order never depends on how git listed them. */
function byTime(commits: CommitFact[], times: ReadonlyMap<string, number>): CommitFact[] {
  return commits.sort((a, b) => times.get(a.id)! - times.get(b.id)! || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
