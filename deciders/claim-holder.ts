import { holdsClaims, livenessOf, mayAct } from '../projections/coordination/liveness.js';
import { currentClaim, holderOf, type Holder } from '../projections/work-units/claim-holder.js';
import { ownValue } from '../projections/own-keys.js';
import { isDone, depsOf } from '../projections/work-units/evidence.js';
import { laneSettings, type WorkUnitsConfig } from '../projections/work-units/settings.js';
import { withRecordedSettings } from '../projections/work-units/recorded-settings.js';
import type { WorkUnitsState, WuRecord } from '../projections/work-units/state.js';
import { recordsNotDone } from '../projections/work-units/lazy-records.js';
import { WorkUnitErrorCode } from './error-codes.js';
import { Refusal } from './refusal.js';

/**
 * Who holds a claim, and who may act on it. A claim is a lease: its session holds it while the
 * session is live (heartbeats, checkpoints and hook activity keep it so); a claim made without a
 * session, by an agent identity, is held for one default TTL after the WU's last activity. Only
 * the holder (or a later session of the same agent identity) acts on a held claim; an
 * orchestrator may finish it once the worker returned or the lease lapsed; anyone else takes it
 * over explicitly, with a reason, once it lapsed. Who holds it: projections/work-units/claim-holder.ts.
 */
export { currentClaim, holderOf, type Holder };

/** Who acts: the acting session (or null) and the recorded actor (the session, an identity, or `system`). */
export interface ClaimActor {
  session: string | null;
  actor: string;
}

/** The acting session's agent identity (or the identity acting without a session). */
function identityOf(fold: WorkUnitsState, who: ClaimActor): string | null {
  if (who.session !== null) return ownValue(fold.sessions, who.session)?.agent_identity ?? null;
  return who.actor !== 'system' && !who.actor.startsWith('session_') ? who.actor : null;
}

/** Is `who` the holder: the claiming session, or any session (or the bare identity) of the same agent identity. */
export function isHolder(fold: WorkUnitsState, holder: Holder, who: ClaimActor): boolean {
  if (holder.session !== null && who.session === holder.session) return true;
  const mine = identityOf(fold, who);
  return mine !== null && mine === holder.identity;
}

export function isOrchestrator(fold: WorkUnitsState, who: ClaimActor): boolean {
  return who.session !== null && ownValue(fold.sessions, who.session)?.role === 'orchestrator';
}

function holderName(holder: Holder): string {
  return holder.session ?? `agent ${holder.identity!}`;
}

function describeHolder(holder: Holder): string {
  if (holder.liveness.kind === 'ended') return `${holderName(holder)} (ended (${holder.liveness.status}); last sign of life ${holder.last_seen})`;
  const live = holdsClaims(holder.liveness);
  return `${holderName(holder)} (last sign of life ${holder.last_seen}; lease ${live ? 'lapses' : 'lapsed'} ${holder.lease_until})`;
}

/**
 * An acting session that does not exist or has ended is no one's holder and no one's rival: the
 * command handler refuses it UNKNOWN_SESSION (deciders/acting-session.ts), so a typo in one's own
 * session is never answered NOT_HOLDER naming oneself.
 */
function actingIsGone(fold: WorkUnitsState, who: ClaimActor, now: string): boolean {
  return who.session !== null && !mayAct(livenessOf(ownValue(fold.sessions, who.session), now));
}

/** NOT_HOLDER: the refusal of an action on a claim someone else holds, naming the holder and its lease. */
export function notHolder(wu: WuRecord, holder: Holder, action: string, hint: string): Refusal {
  return new Refusal(WorkUnitErrorCode.NOT_HOLDER, `wu ${action}: ${wu.wu_id} is held by ${describeHolder(holder)}; ${hint}`, {
    wu_id: wu.wu_id,
    holder: holder.session ?? holder.identity,
    holder_live: holdsClaims(holder.liveness),
    last_seen: holder.last_seen,
    lease_until: holder.lease_until,
  });
}

/** Checkpoint, return, block, unblock: the holder only; an unowned claim of an older log stays open to all. */
export function requireHolder(fold: WorkUnitsState, wu: WuRecord, who: ClaimActor, now: string, action: string): void {
  const holder = holderOf(fold, wu, now);
  if (holder === null || isHolder(fold, holder, who) || actingIsGone(fold, who, now)) return;
  const hint = holdsClaims(holder.liveness)
    ? 'coordinate with it (baton mem signal --to it --wu ' + wu.wu_id + ')'
    : `take it over first: baton wu claim ${wu.wu_id} --takeover --reason R`;
  throw notHolder(wu, holder, action, hint);
}

/**
 * Finishing (`wu done`, `wu release`): the holder, or an orchestrator once the worker returned or
 * its lease lapsed (the holder it finished for is recorded). Returns the holder finished for, or null.
 */
export function requireFinisher(fold: WorkUnitsState, wu: WuRecord, who: ClaimActor, now: string, action: string): string | null {
  const holder = holderOf(fold, wu, now);
  if (holder === null || isHolder(fold, holder, who) || actingIsGone(fold, who, now)) return null;
  const returned = wu.returned !== null && wu.returned.seq >= wu.window_start;
  if (isOrchestrator(fold, who) && (returned || !holdsClaims(holder.liveness))) return holder.session ?? holder.identity;
  const hint = holdsClaims(holder.liveness)
    ? 'only the holder, or an orchestrator session once the worker returned, may finish it'
    : `an orchestrator session may finish it, or take it over: baton wu claim ${wu.wu_id} --takeover --reason R`;
  throw notHolder(wu, holder, action, hint);
}

/** Readiness (LumenFlow's claim): the WU's dependencies not done yet. */
export function unfinishedDependencies(fold: WorkUnitsState, wu: WuRecord): string[] {
  return depsOf(wu).filter((d) => !isDone(ownValue(fold.wus, d)));
}

/** The WUs other than `wu` that hold its lane under the lane's lock policy, when the lane is at its WIP limit. */
export function laneAtLimit(fold: WorkUnitsState, wu: WuRecord, config: WorkUnitsConfig): { holders: string[]; wip_limit: number } | null {
  const lane = wu.def.lane;
  if (lane === undefined) return null;
  // The lanes a LumenFlow import recorded count, as they do for orchestrate status (its config wins).
  const { lock_policy, wip_limit } = laneSettings(withRecordedSettings(config, fold.recorded_settings), lane);
  if (lock_policy === 'none') return null;
  const holders = [...recordsNotDone(fold)]
    .filter((other) => other.wu_id !== wu.wu_id && other.def.lane === lane && !isDone(other) && currentClaim(other) !== null)
    .filter((other) => other.lifecycle.state === 'in_progress' || (lock_policy === 'all' && other.lifecycle.state === 'blocked'))
    .map((other) => other.wu_id);
  return holders.length >= wip_limit ? { holders, wip_limit } : null;
}
