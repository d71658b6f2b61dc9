import { holdsClaims } from '../coordination/liveness.js';
import { ownValue } from '../own-keys.js';
import { currentClaim, holderOf, type Holder } from '../work-units/claim-holder.js';
import { compileCodePath } from '../work-units/code-paths.js';
import { isDone } from '../work-units/evidence.js';
import type { Mark, WorkUnitsState, WuRecord } from '../work-units/records.js';
import { holderName, liveReservations } from '../work-units/reservations.js';
import type { CommitGraph } from './commit-graph.js';
import { workTips, worktreeAt } from './done-findings.js';
import { commitOf, duration, elapsedMs, eventsOf, finding, short } from './evidence.js';
import type { AuditLogState } from './log-fold.js';
import type { AuditWindows, Finding, Fix } from './types.js';

/**
 * A WU the log says is claimed, against the live sessions and git: a holder that is not live (the
 * one rule: holderOf → liveness.ts), a worktree or branch that no longer exists, no checkpoint for
 * longer than the stall window; and, over every live claim, commits by others touching what it reserves.
 */
export interface ClaimAuditContext {
  fold: WorkUnitsState;
  log: AuditLogState;
  now: string;
  windows: AuditWindows;
  graph: CommitGraph | null;
}

const inWindow = <M extends Mark>(wu: WuRecord, mark: M | null): M | null => (mark !== null && mark.seq >= wu.window_start ? mark : null);

function describe(holder: Holder): string {
  const name = holder.session ?? `agent ${holder.identity ?? '?'}`;
  const l = holder.liveness;
  const state = l.kind === 'ended' ? `ended (${l.status})` : l.kind === 'stale' ? `idle for ${duration(l.idle_ms)}` : l.kind;
  return `${name}, ${state}: last sign of life ${holder.last_seen}, lease until ${holder.lease_until}`;
}

export function claimFindings(wu: WuRecord, ctx: ClaimAuditContext): Finding[] {
  const claim = currentClaim(wu);
  if (claim === null || isDone(wu) || !wu.defined) return [];
  const state = wu.lifecycle.state;
  if (state !== 'in_progress' && state !== 'blocked') return [];
  const holder = holderOf(ctx.fold, wu, ctx.now);
  const live = holder !== null && holdsClaims(holder.liveness);
  const out: Finding[] = [];
  const subject = { kind: 'wu' as const, id: wu.wu_id };
  if (holder !== null && !live) {
    const lapse = holder.session === null ? null : (ownValue(ctx.log.sessions, holder.session)?.lapsed ?? null);
    out.push(
      finding({
        code: 'WU_HOLDER_NOT_LIVE',
        severity: 'warn',
        subject,
        message: `${wu.wu_id} is claimed (seq ${claim.seq}) by ${describe(holder)}; nobody is working on it`,
        events: eventsOf(claim, inWindow(wu, wu.checkpoint), lapse),
        resolve: { kind: 'takeover_or_release', wu: wu.wu_id },
      }),
    );
  }
  // A claim nobody holds any more is released by --fix when its workspace is gone; a live holder's is left to it.
  const fix: Fix | null = live ? null : { kind: 'release', wu: wu.wu_id };
  if (ctx.graph !== null) out.push(...workspaceFindings(wu, claim, ctx, fix));
  const stalled = stallFinding(wu, claim, ctx);
  if (stalled !== null) out.push(stalled);
  return out;
}

/** The claim's worktree and branch against git: gone after the log saw them, or never made though the claim is older than the stall window. */
function workspaceFindings(wu: WuRecord, claim: NonNullable<WuRecord['claim']>, ctx: ClaimAuditContext, fix: Fix | null): Finding[] {
  const repo = ctx.graph!.facts;
  const old = elapsedMs(claim.at, ctx.now) > ctx.windows.stall_seconds * 1000;
  const out: Finding[] = [];
  const subject = { kind: 'wu' as const, id: wu.wu_id };
  const { git } = workTips(repo, { branch: claim.branch, worktree: claim.worktree_path });
  const path = claim.worktree_path;
  if (path !== null && worktreeAt(repo, path) === undefined) {
    const seen = Object.hasOwn(wu.worktrees, path) ? wu.worktrees[path]! : null;
    if (seen !== null || old)
      out.push(
        finding({
          code: 'WU_WORKTREE_MISSING',
          severity: 'warn',
          subject,
          message:
            seen !== null
              ? `${wu.wu_id}'s worktree ${path} no longer exists (the log last saw it ${seen.present ? 'present' : 'absent'} at seq ${seen.seq})`
              : `${wu.wu_id}'s worktree ${path} does not exist, ${duration(elapsedMs(claim.at, ctx.now))} after its claim`,
          events: eventsOf(claim, seen),
          git: git.filter((g) => g.kind === 'worktree'),
          resolve: { kind: 'takeover_or_release', wu: wu.wu_id },
          fix,
        }),
      );
  }
  const branch = claim.branch;
  const onWorktree = repo.worktrees.some((w) => !w.prunable && w.branch === branch);
  if (branch !== null && !Object.hasOwn(repo.branches, branch) && !onWorktree) {
    const seen = Object.hasOwn(wu.branches, branch) ? wu.branches[branch]! : null;
    if (seen !== null || old)
      out.push(
        finding({
          code: 'WU_BRANCH_MISSING',
          severity: 'warn',
          subject,
          message:
            seen !== null
              ? `${wu.wu_id}'s branch ${branch} no longer exists (the log last saw it ${seen.present ? 'present' : 'absent'} at seq ${seen.seq})`
              : `${wu.wu_id}'s branch ${branch} does not exist, ${duration(elapsedMs(claim.at, ctx.now))} after its claim`,
          events: eventsOf(claim, seen),
          git: git.filter((g) => g.kind === 'branch'),
          resolve: { kind: 'takeover_or_release', wu: wu.wu_id },
          fix,
        }),
      );
  }
  return out;
}

/** In progress, not handed back, and no claim, checkpoint or unblock for longer than the stall window. */
function stallFinding(wu: WuRecord, claim: NonNullable<WuRecord['claim']>, ctx: ClaimAuditContext): Finding | null {
  if (wu.lifecycle.state !== 'in_progress') return null;
  const checkpoint = inWindow(wu, wu.checkpoint);
  const marks = [claim, checkpoint, inWindow(wu, wu.unblock), inWindow(wu, wu.pickup)].filter((m): m is Mark => m !== null);
  const last = marks.reduce((a, b) => (Date.parse(b.at) > Date.parse(a.at) ? b : a));
  const returned = inWindow(wu, wu.returned);
  if (returned !== null && returned.seq > last.seq) return null;
  const idle = elapsedMs(last.at, ctx.now);
  if (idle <= ctx.windows.stall_seconds * 1000) return null;
  return finding({
    code: 'WU_STALLED',
    severity: 'warn',
    subject: { kind: 'wu', id: wu.wu_id },
    message: `${wu.wu_id} has had no checkpoint for ${duration(idle)} (last activity at seq ${last.seq}, ${last.at}); the stall window is ${duration(ctx.windows.stall_seconds * 1000)}`,
    events: eventsOf(claim, checkpoint, last),
    resolve: { kind: 'checkpoint', wu: wu.wu_id },
  });
}

/** Every commit the claim's branch and worktree reach. */
function ownWork(graph: CommitGraph, claim: NonNullable<WuRecord['claim']>): Set<string> {
  const own = new Set<string>();
  for (const tip of workTips(graph.facts, { branch: claim.branch, worktree: claim.worktree_path }).tips) for (const id of graph.ancestors(tip)) own.add(id);
  return own;
}

/** Commits made after a live claim, not on the claim's own work, that change a path it reserves. */
export function reservationFindings(ctx: ClaimAuditContext): Finding[] {
  const graph = ctx.graph;
  if (graph === null) return [];
  const out: Finding[] = [];
  for (const reservation of liveReservations(ctx.fold, ctx.now)) {
    const wu = ctx.fold.wus[reservation.wu_id]!;
    const claim = currentClaim(wu)!;
    const matchers = reservation.globs.map(compileCodePath);
    // The claim's own work is walked only when a later commit touches what it reserves.
    let own: Set<string> | undefined;
    for (const commit of [...graph.since(Date.parse(claim.at))].reverse()) {
      const paths = commit.paths.filter((p) => matchers.some((m) => m(p)));
      if (paths.length === 0) continue;
      own ??= ownWork(graph, claim);
      if (own.has(commit.id)) continue;
      const holder = holderName(reservation.holder);
      out.push(
        finding({
          code: 'WU_RESERVATION_VIOLATED',
          severity: 'warn',
          subject: { kind: 'wu', id: wu.wu_id },
          message: `commit ${short(commit.id)} changed ${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ` and ${paths.length - 5} more` : ''}, reserved by ${wu.wu_id}'s live claim (held by ${holder} since seq ${claim.seq})`,
          events: eventsOf(claim),
          git: [commitOf(commit, `changed ${paths.join(', ')}`)],
          resolve: { kind: 'signal_holder', wu: wu.wu_id, holder },
        }),
      );
    }
  }
  return out;
}
