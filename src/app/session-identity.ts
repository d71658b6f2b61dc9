import type { EventCatalog } from '../../events/catalog.js';
import type { NewEvent } from '../../events/envelope.js';
import { requireLiveActor } from '../../deciders/acting-session.js';
import type { SessionClock } from '../../projections/coordination/liveness.js';
import { clockOf } from '../../projections/coordination/sessions.js';
import type { CoordinationState } from '../../projections/coordination/state.js';
import type { EventStore } from '../store/contract.js';
import { asBatonError } from '../store/handle-command.js';
import { storeExists } from '../store/jsonl/layout.js';

/**
 * Who `--session` / `BATON_SESSION` names. Reads and writes accept a live session's
 * display name wherever a session id goes. A write whose actor would be a session that does not
 * exist or has ended is refused (UNKNOWN_SESSION, exit 2, nothing appended) by the decision itself
 * (handle-command.ts, deciders/acting-session.ts), so library callers are refused too.
 */
export interface IdentityInputs {
  store: () => Promise<EventStore>;
  catalog: () => Promise<EventCatalog>;
  cacheDir: () => Promise<string>;
  now: string;
}

async function coordinationFold(inputs: IdentityInputs): Promise<CoordinationState> {
  const { loadState } = await import('../coordination/env.js');
  const { state } = await loadState({
    store: await inputs.store(),
    catalog: await inputs.catalog(),
    now: inputs.now,
    cacheDir: await inputs.cacheDir(),
  } as Parameters<typeof loadState>[0]);
  return state;
}

const looksLikeSessionId = (token: string): boolean => token.startsWith('session_');

/**
 * The session id a display name names (a live, not ended, session holds it), or undefined: the
 * token is then used as given (a session id, or an agent identity some commands resolve themselves).
 */
export async function sessionIdForName(inputs: IdentityInputs & { workspace: string; externalStore: boolean }, token: string): Promise<string | undefined> {
  if (looksLikeSessionId(token)) return undefined;
  // A workspace without `.baton/` has no sessions; reading must not create it.
  if (!inputs.externalStore && !storeExists(inputs.workspace)) return undefined;
  const id = (await coordinationFold(inputs)).names_held.get(token);
  return id;
}

/**
 * The identity check for an append that does not run through the command handler yet (a decision
 * the handler runs is checked there, on the state it read: handle-command.ts): when an event would
 * record the acting session as its actor (given, or `defaultActor`), that session must exist and
 * not have ended, or be started by the batch (deciders/acting-session.ts). Folds the sessions only
 * when some event acts as it.
 */
export async function requireActingSession(
  inputs: IdentityInputs,
  acting: { session: string; name: string },
  events: readonly NewEvent[],
  defaultActor: string,
): Promise<void> {
  if (!events.some((e) => (e.actor ?? defaultActor) === acting.session)) return;
  const clock = await sessionClockIn(inputs, acting.session);
  try {
    requireLiveActor({ session: acting.session, clock }, events, inputs.now);
  } catch (error) {
    throw asBatonError(error, acting.name);
  }
}

/** The session's liveness facts as the log holds them (undefined: no such session), for a handler's `acting` check. */
export async function sessionClockIn(inputs: IdentityInputs, session: string): Promise<SessionClock | undefined> {
  const record = (await coordinationFold(inputs)).sessions.get(session);
  return record === undefined ? undefined : clockOf(record);
}
