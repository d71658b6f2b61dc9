import { SessionStatus, SYSTEM_IDENTITY } from '../../events/coordination/vocabulary.js';
import { livenessOf, type SessionClock } from './liveness.js';
import type { CoordinationState, LapseRecord, SessionRecord } from './state.js';

/** Session queries over the fold: effective status, reader identity, token resolution (§1, §6.2). */

/** The liveness facts of a coordination session record (liveness.ts: the one rule). */
export function clockOf(session: SessionRecord): SessionClock {
  return {
    last_heartbeat_at: session.last_heartbeat_at,
    ttl_seconds: session.ttl_seconds,
    ended: session.stored_status === SessionStatus.active ? false : session.stored_status,
  };
}

/** `abandoned` while stored-active and `now − last_heartbeat_at > ttl` (strictly greater): stale. Never stored. */
export function effectiveStatus(session: SessionRecord, now: string): SessionStatus {
  const liveness = livenessOf(clockOf(session), now);
  if (liveness.kind === 'ended') return liveness.status;
  return liveness.kind === 'stale' ? SessionStatus.abandoned : SessionStatus.active;
}

/**
 * The session's recorded lapse while it still stands: no sign of life since the `last_seen` it
 * names (a later heartbeat or fact revived the session, and a lapse after that is a new one). Null
 * when none was recorded. A fact, not the clock: liveness itself stays the TTL rule.
 */
export function currentLapse(session: SessionRecord): LapseRecord | null {
  const lapse = session.lapse;
  return lapse !== undefined && Date.parse(lapse.last_seen) >= Date.parse(session.last_heartbeat_at) ? lapse : null;
}

export function isLive(session: SessionRecord, now: string): boolean {
  return livenessOf(clockOf(session), now).kind === 'live';
}

export function readerIdentityOf(session: SessionRecord): string {
  return session.agent_identity ?? session.session_id;
}

/** Sessions in roster order: `created_at`, then `session_id`. */
export function sessionsInOrder(state: CoordinationState): SessionRecord[] {
  return [...state.sessions.values()].sort((a, b) => {
    const t = Date.parse(a.created_at) - Date.parse(b.created_at);
    return t !== 0 ? t : a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : 0;
  });
}

/**
 * The session a token names: a session id as given, or the id of the live (not ended) session
 * holding that display name; any other token is returned as given (the caller's check refuses it).
 */
export function sessionIdIn(state: CoordinationState, token: string): string {
  if (token.startsWith('session_')) return token;
  return state.names_held.get(token) ?? token;
}

export const ResolveFailure = { unknown: 'unknown', ambiguous: 'ambiguous' } as const;
export type ResolveFailure = (typeof ResolveFailure)[keyof typeof ResolveFailure];

export type Resolution = { ok: true; identity: string; sessions: SessionRecord[] } | { ok: false; failure: ResolveFailure; candidates: string[] };

/**
 * One `--to` / `--for` token, first stage that matches (§6.2): live session id; live agent identity,
 * else any identity a session ever had (addressable offline); live display name (case-sensitive).
 * `acceptAbandoned` widens "live" to non-ended sessions (hooks drain, §9.3).
 */
export function resolveToken(state: CoordinationState, now: string, token: string, options: { acceptAbandoned?: boolean } = {}): Resolution {
  const usable = (s: SessionRecord): boolean => (options.acceptAbandoned ? s.stored_status === SessionStatus.active : isLive(s, now));
  const all = [...state.sessions.values()];
  const live = all.filter(usable);
  const stages: (() => SessionRecord[])[] = [
    () => live.filter((s) => s.session_id === token),
    () => {
      const byIdentity = live.filter((s) => s.agent_identity === token);
      return byIdentity.length > 0 ? byIdentity : all.filter((s) => s.agent_identity === token);
    },
    () => live.filter((s) => s.display_name === token),
  ];
  for (const stage of stages) {
    const matches = stage();
    if (matches.length === 0) continue;
    const identities = [...new Set(matches.map(readerIdentityOf))];
    if (identities.length > 1) return { ok: false, failure: ResolveFailure.ambiguous, candidates: identities };
    return { ok: true, identity: identities[0]!, sessions: matches };
  }
  return { ok: false, failure: ResolveFailure.unknown, candidates: [] };
}

/** The acting identity (§1): the acting session's reader identity, else the env identity, else system. */
export function actingIdentity(state: CoordinationState, session: string | undefined, envIdentity: string | undefined): string {
  if (session !== undefined) {
    const record = state.sessions.get(session);
    return record ? readerIdentityOf(record) : session;
  }
  return envIdentity ?? SYSTEM_IDENTITY;
}

/** Display name of the live session(s) behind an identity, for human output. */
export function displayNameFor(state: CoordinationState, now: string, identity: string): string | null {
  for (const s of state.sessions.values()) {
    if ((s.session_id === identity || s.agent_identity === identity) && isLive(s, now)) return s.display_name;
  }
  return null;
}
