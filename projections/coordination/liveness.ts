import type { EndStatus } from '../../events/coordination/vocabulary.js';

/**
 * Whether a session is live (coordination.md §2, work-units.md §3.3 takeover): the one rule, asked
 * of whichever fold a command read. Both folds keep the same few facts of a session (its last
 * heartbeat, its TTL, how it ended); a command judges liveness from the record of the one fold it
 * read, so the decider's two questions about a session are answered from the same record:
 *
 * - may it still act, recording facts as itself? While it exists and has not ended (`live` or
 *   `stale`): a session past its TTL that comes back keeps working — its next fact revives it.
 * - does it still hold its claims? Only while `live`: a stale (idle past its TTL), ended or unknown
 *   claimant's work unit may be taken over.
 */
export interface SessionClock {
  last_heartbeat_at: string;
  ttl_seconds: number;
  /** How it ended; false while it has not. */
  ended: false | EndStatus;
}

export type Liveness =
  | { kind: 'live' }
  /** Started, not ended, idle longer than its TTL (strictly): shown as `abandoned`, never stored. */
  | { kind: 'stale'; idle_ms: number }
  | { kind: 'ended'; status: EndStatus }
  | { kind: 'unknown' };

export function livenessOf(session: SessionClock | undefined, now: string): Liveness {
  if (session === undefined) return { kind: 'unknown' };
  if (session.ended !== false) return { kind: 'ended', status: session.ended };
  const idleMs = Date.parse(now) - Date.parse(session.last_heartbeat_at);
  return idleMs > session.ttl_seconds * 1000 ? { kind: 'stale', idle_ms: idleMs } : { kind: 'live' };
}

/** May the session record facts as itself: it exists and has not ended (idle past its TTL is fine). */
export function mayAct(liveness: Liveness): boolean {
  return liveness.kind === 'live' || liveness.kind === 'stale';
}

/** Does the session still hold what it claimed: only while live; otherwise a claim may be taken over. */
export function holdsClaims(liveness: Liveness): boolean {
  return liveness.kind === 'live';
}

/** Any fact a live session records keeps it alive (§2 heartbeat rule): the later of the two times. */
export function keepAlive(session: SessionClock | undefined, at: string): void {
  if (session !== undefined && session.ended === false && Date.parse(at) > Date.parse(session.last_heartbeat_at)) session.last_heartbeat_at = at;
}
