import { livenessOf, type Liveness, type SessionClock } from '../coordination/liveness.js';
import { ownValue } from '../own-keys.js';
import type { WorkUnitsState, WuRecord } from './state.js';

/**
 * Who holds a WU's claim: a lease. The claiming session holds it while the session is live (its
 * heartbeats, checkpoints and hook activity keep it so); a claim made by an agent identity without
 * a session is held for one default TTL after the WU's last activity; a sessionless claim of an
 * older log has no holder (unowned).
 */
/** The lease of a claim made by an identity without a session: one default session TTL (coordination settings: 4h). */
export const IDENTITY_LEASE_SECONDS = 4 * 3600;

export interface Holder {
  /** The claiming session, or null for a claim made by an identity alone. */
  session: string | null;
  /** The agent identity behind the claim, when known. */
  identity: string | null;
  liveness: Liveness;
  /** Its last sign of life, and when its lease lapses (lapsed already when not live). */
  last_seen: string;
  lease_until: string;
}

/** The claim of the WU's current window (a release or relaunch starts a new one). */
export function currentClaim(wu: WuRecord): WuRecord['claim'] {
  return wu.claim !== null && wu.claim.seq >= wu.window_start ? wu.claim : null;
}

const plusSeconds = (at: string, seconds: number): string => new Date(Date.parse(at) + seconds * 1000).toISOString();

/** The holder of the WU's current claim; null when unclaimed or unowned (a sessionless claim of an older log). */
export function holderOf(fold: WorkUnitsState, wu: WuRecord, now: string): Holder | null {
  const claim = currentClaim(wu);
  if (claim === null) return null;
  if (claim.session_id !== null) {
    const facts = ownValue(fold.sessions, claim.session_id);
    const last = facts?.last_heartbeat_at ?? claim.at;
    return {
      session: claim.session_id,
      identity: facts?.agent_identity ?? null,
      liveness: livenessOf(facts, now),
      last_seen: last,
      lease_until: plusSeconds(last, facts?.ttl_seconds ?? 0),
    };
  }
  const identity = claim.agent_identity ?? null;
  if (identity === null) return null;
  const activity = [claim.at, wu.checkpoint !== null && wu.checkpoint.seq >= wu.window_start ? wu.checkpoint.at : claim.at].sort().at(-1)!;
  const clock: SessionClock = { last_heartbeat_at: activity, ttl_seconds: IDENTITY_LEASE_SECONDS, ended: false };
  return { session: null, identity, liveness: livenessOf(clock, now), last_seen: activity, lease_until: plusSeconds(activity, IDENTITY_LEASE_SECONDS) };
}
