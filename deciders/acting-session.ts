import { livenessOf, mayAct, type SessionClock } from '../projections/coordination/liveness.js';
import type { ProposedEvent } from './decision.js';
import { Refusal } from './refusal.js';

/**
 * Identity on writes: a fact recorded as a session (its actor) needs that session to exist and not
 * to have ended — else a typo or a finished session would become the recorded actor, and the next
 * claimant could take its work unit over. Part of every decision the command handler runs; the
 * record comes from the same read as the decider's state.
 */
export const UNKNOWN_SESSION = 'UNKNOWN_SESSION';

/** The session a command acts as, and its liveness facts as the state read holds them (undefined: none). */
export interface ActingSession {
  session: string;
  clock: SessionClock | undefined;
}

/** A batch that itself starts the acting session (a start, an import, a fixture) makes it live. */
function startsSession(events: readonly ProposedEvent[], session: string): boolean {
  return events.some((e) => e.type === 'session.started' && e.data['session_id'] === session);
}

/**
 * Refuses UNKNOWN_SESSION (naming the `session` input) unless the acting session may act as itself
 * (liveness.ts `mayAct`: started and not ended; idle past its TTL is fine) or the batch starts it.
 */
export function requireLiveActor(acting: ActingSession, events: readonly ProposedEvent[], now: string): void {
  const liveness = livenessOf(acting.clock, now);
  if (mayAct(liveness) || startsSession(events, acting.session)) return;
  const why = liveness.kind === 'ended' ? `it ended (${liveness.status})` : 'no session has that id or live display name';
  const say = (name: string): string =>
    `${name}: ${acting.session} names no live session (${why}); start one with \`baton session start\`. Nothing was appended`;
  throw new Refusal(UNKNOWN_SESSION, say('session'), { field: 'session', session: acting.session }, { field: 'session', say });
}
