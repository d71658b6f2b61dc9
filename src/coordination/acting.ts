import type { NewEvent } from '../../events/envelope.js';
import { requireLiveActor } from '../../deciders/acting-session.js';
import { clockOf } from '../../projections/coordination/sessions.js';
import type { CoordinationState } from '../../projections/coordination/state.js';
import { asBatonError, type ActingAs } from '../store/handle-command.js';
import { actorOf, loadState, type CoordinationEnv } from './env.js';

/**
 * Who a coordination command acts as, for the command handler's identity check
 * (handle-command.ts `acting`): the env's session, its liveness facts read from the coordination
 * fold in the decider's state (`coordinationOf`), so the check costs no read of its own.
 */
export function actingIn<S>(env: Pick<CoordinationEnv, 'session' | 'sessionName'>, coordinationOf: (state: S) => CoordinationState): ActingAs<S> | undefined {
  const session = env.session;
  if (session === undefined) return undefined;
  return {
    session,
    name: env.sessionName,
    clock: (state) => {
      const record = coordinationOf(state).sessions.get(session);
      return record === undefined ? undefined : clockOf(record);
    },
  };
}

/**
 * The same check for an append that does not run through the handler yet: refuses UNKNOWN_SESSION
 * when an event would record the env's session (given, or the env's actor) while that session does
 * not exist or has ended. `state` is the fold the caller read, when it has one (else it is folded).
 */
export async function requireActingSessionIn(env: CoordinationEnv, events: readonly NewEvent[], state?: CoordinationState): Promise<void> {
  const session = env.session;
  if (session === undefined || !events.some((e) => (e.actor ?? actorOf(env)) === session)) return;
  const record = (state ?? (await loadState(env)).state).sessions.get(session);
  try {
    requireLiveActor({ session, clock: record === undefined ? undefined : clockOf(record) }, events, env.now);
  } catch (error) {
    throw asBatonError(error, env.sessionName);
  }
}

/**
 * Before a command shows anything it will then record as the env's session (a watch's or a drain's
 * receipts, when the caller acts as a session): that session must be able to act in `state`, the
 * fold the command read, so a refusal comes before any output, not between output and its receipts.
 */
export function requireLiveActing(env: Pick<CoordinationEnv, 'session' | 'sessionName' | 'now'>, state: CoordinationState): void {
  const session = env.session;
  if (session === undefined) return;
  const record = state.sessions.get(session);
  try {
    requireLiveActor({ session, clock: record === undefined ? undefined : clockOf(record) }, [], env.now);
  } catch (error) {
    throw asBatonError(error, env.sessionName);
  }
}
