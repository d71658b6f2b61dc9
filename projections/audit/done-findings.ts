import { compileCodePath } from '../work-units/code-paths.js';
import { isDone } from '../work-units/evidence.js';
import type { Mark, WuRecord } from '../work-units/records.js';
import type { CommitGraph } from './commit-graph.js';
import { commitOf, eventsOf, finding, short } from './evidence.js';
import type { CommitFact, Finding, GitEvidence, RepositoryFacts } from './types.js';

/**
 * A WU the log says is done, against git: its branch's (or worktree's) commits that the integration
 * branch does not hold, the commits made on it after it was done, and whether any commit touched its
 * code paths since it was claimed at all.
 */

/** The event that made the WU done: Baton's stamp, a stamp file seen, or the YAML status. */
export function doneMark(wu: WuRecord): Mark | null {
  if (wu.stamped !== null) return wu.stamped;
  if (wu.stamp_file !== null && wu.stamp_file.present && wu.stamp_file.valid) return wu.stamp_file;
  return wu.yaml_status_mark;
}

/** The branch and worktree the WU's work was recorded in: its claim's, else its handoff's, else its YAML's. */
export function workPlace(wu: WuRecord): { branch: string | null; worktree: string | null } {
  const yamlBranch = typeof wu.def.claimed_branch === 'string' ? wu.def.claimed_branch : null;
  return {
    branch: wu.claim?.branch ?? wu.handoff?.branch ?? yamlBranch,
    worktree: wu.claim?.worktree_path ?? wu.handoff?.worktree_path ?? null,
  };
}

/** The worktree git lists at a path the log names (relative to the workspace, or absolute); prunable ones do not count. */
export function worktreeAt(repo: RepositoryFacts, path: string | null): RepositoryFacts['worktrees'][number] | undefined {
  if (path === null) return undefined;
  const wanted = path.replace(/\/+$/, '').replace(/^\.\//, '');
  return repo.worktrees.find((w) => !w.prunable && (w.relative === wanted || w.path === wanted || w.path === path));
}

/** The commits a WU's work stands on: its branch's tip and its worktree's HEAD, where they exist. */
export function workTips(repo: RepositoryFacts, place: { branch: string | null; worktree: string | null }): { tips: string[]; git: GitEvidence[] } {
  const tips: string[] = [];
  const git: GitEvidence[] = [];
  if (place.branch !== null) {
    const tip = Object.hasOwn(repo.branches, place.branch) ? repo.branches[place.branch]! : null;
    if (tip !== null) tips.push(tip);
    git.push({ kind: 'branch', id: tip, name: place.branch, detail: tip === null ? 'does not exist' : `tip ${short(tip)}` });
  }
  const worktree = worktreeAt(repo, place.worktree);
  if (place.worktree !== null) {
    if (worktree !== undefined && worktree.head !== null && !tips.includes(worktree.head)) tips.push(worktree.head);
    git.push({
      kind: 'worktree',
      id: worktree?.head ?? null,
      name: place.worktree,
      detail:
        worktree === undefined
          ? 'not a worktree'
          : `HEAD ${worktree.head === null ? '(none)' : short(worktree.head)}${worktree.branch ? ` on ${worktree.branch}` : ''}`,
    });
  }
  return { tips, git };
}

/** The integration branch as it stood at `at`: the newest commit of its first-parent line no later than that. */
function integrationAt(graph: CommitGraph, at: string): string | null {
  const limit = Date.parse(at);
  for (const commit of graph.firstParentLine(graph.facts.integration.commit)) if (graph.time(commit) <= limit) return commit.id;
  return null;
}

const listCommits = (commits: readonly CommitFact[]): string =>
  commits
    .slice(0, 5)
    .map((c) => short(c.id))
    .join(', ') + (commits.length > 5 ? ` and ${commits.length - 5} more` : '');

export function doneFindings(wu: WuRecord, graph: CommitGraph): Finding[] {
  if (!isDone(wu)) return [];
  const done = doneMark(wu);
  if (done === null) return [];
  const repo = graph.facts;
  const integration = repo.integration;
  const place = workPlace(wu);
  const { tips, git } = workTips(repo, place);
  const out: Finding[] = [];
  const subject = { kind: 'wu' as const, id: wu.wu_id };
  const doneAt = Date.parse(done.at);
  if (integration.commit !== null && tips.length > 0) {
    const unmerged = graph.only(tips, graph.ancestors(integration.commit)).filter((c) => graph.time(c) <= doneAt);
    if (unmerged.length > 0)
      out.push(
        finding({
          code: 'WU_DONE_UNMERGED',
          severity: 'error',
          subject,
          message: `${wu.wu_id} is done (seq ${done.seq}) but ${unmerged.length} commit(s) of its work are not on ${integration.name}: ${listCommits(unmerged)}`,
          events: eventsOf(wu.claim, done),
          git: [...git, ...unmerged.map((c) => commitOf(c, `not reachable from ${integration.name}`))],
          resolve: { kind: 'merge', branch: place.branch ?? tips[0]!, into: integration.name },
        }),
      );
    const mainLine = new Set(graph.firstParentLine(integration.commit).map((c) => c.id));
    const base = graph.ancestors(integrationAt(graph, done.at));
    const after = graph.only(tips, base).filter((c) => graph.time(c) > doneAt && !mainLine.has(c.id));
    if (after.length > 0)
      out.push(
        finding({
          code: 'WU_COMMIT_AFTER_DONE',
          severity: 'warn',
          subject,
          message: `${wu.wu_id} was done at ${done.at} (seq ${done.seq}); ${after.length} commit(s) were made on its work after that: ${listCommits(after)}`,
          events: eventsOf(done),
          git: [...git, ...after.map((c) => commitOf(c, 'after the WU was done'))],
          resolve: { kind: 'investigate', wu: wu.wu_id },
        }),
      );
  }
  const noCommits = noCommitFinding(wu, graph, done, git);
  if (noCommits !== null) out.push(noCommits);
  return out;
}

/** A done WU with code paths that no commit git shows has touched since its claim. */
function noCommitFinding(wu: WuRecord, graph: CommitGraph, done: Mark, git: GitEvidence[]): Finding | null {
  const codePaths = wu.def.code_paths ?? [];
  const claim = wu.claim;
  if (codePaths.length === 0 || claim === null) return null;
  const matchers = codePaths.map(compileCodePath);
  const touched = graph.since(Date.parse(claim.at) - 1).some((c) => c.paths.some((p) => matchers.some((m) => m(p))));
  if (touched) return null;
  return finding({
    code: 'WU_DONE_NO_COMMITS',
    severity: 'warn',
    subject: { kind: 'wu', id: wu.wu_id },
    message: `${wu.wu_id} is done (seq ${done.seq}) but no commit git shows has touched its code paths (${codePaths.join(', ')}) since its claim at ${claim.at}`,
    events: eventsOf(claim, done),
    git,
    resolve: { kind: 'investigate', wu: wu.wu_id },
  });
}
