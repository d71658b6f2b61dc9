import type { BatonEvent } from '../../events/baton-event.js';
import type { EventCatalog } from '../../events/catalog.js';
import type { StoredEvent } from '../../events/envelope.js';
import type { Decision } from '../../deciders/decision.js';
import { requireLiveActor, UNKNOWN_SESSION } from '../../deciders/acting-session.js';
import { Refusal } from '../../deciders/refusal.js';
import type { SessionClock } from '../../projections/coordination/liveness.js';
import { BatonError, ConflictError } from '../errors.js';
import type { EventStore } from './contract.js';

/** How often a command is read and decided again after losing a race, before it is CONFLICT (exit 4). */
export const MAX_RETRIES = 3;

export interface CommandIo<S> {
  store: EventStore;
  catalog: EventCatalog;
  actor: string;
  now: string;
  /** The state the decider reads: the fold, plus any stream versions read before it. */
  read(): Promise<S>;
  /** Fold the appended events into the state read, so the caller sees the state after the command. */
  evolve?(state: S, event: BatonEvent): S;
  /**
   * The session the command acts as, when the surface names one: a decision that would record
   * facts as it (it is the `actor`) while it does not exist or has ended is refused UNKNOWN_SESSION
   * (deciders/acting-session.ts), after the decider's own refusals. Its liveness facts come from
   * the state read for the decider, so the check costs no read of its own.
   */
  acting?: ActingAs<S> | undefined;
}

export interface ActingAs<S> {
  session: string;
  /** The session's liveness facts in the state read (undefined: the state knows no such session). */
  clock(state: S): SessionClock | undefined;
  /** How the surface names where the session came from (`--session`, `BATON_SESSION`); default: its domain name. */
  name?: string | undefined;
}

export interface Handled<S, R> {
  /** The state after the command (as read when nothing was appended). */
  state: S;
  /** The decision taken (null: nothing to append). */
  decision: Decision<R> | null;
  appended: StoredEvent[];
  /** The idempotency key had been used: the first append's events, nothing written. */
  deduplicated: boolean;
}

/**
 * A pure refusal as the CLI's error: same code, message and details. A refusal about the acting
 * session is worded with the surface's name for it, when it gave one.
 */
export function asBatonError(error: unknown, actingName?: string): unknown {
  if (!(error instanceof Refusal)) return error;
  if (actingName !== undefined && error.code === UNKNOWN_SESSION && error.input !== undefined) {
    return new BatonError(error.code, error.input.say(actingName), { ...error.details, field: actingName });
  }
  return new BatonError(error.code, error.message, error.details, error.input);
}

/**
 * The one command handler: read, decide, append with the expected versions the decision names;
 * on a version conflict read and decide again (at most `maxRetries` times, then the conflict is the
 * answer). Deciding again may turn the request illegal; that refusal is what the caller gets.
 */
export async function handleCommand<S, R>(io: CommandIo<S>, decide: (state: S) => Decision<R> | null, maxRetries = MAX_RETRIES): Promise<Handled<S, R>> {
  for (let attempt = 0; ; attempt++) {
    let state: S = await io.read();
    let decision: Decision<R> | null;
    try {
      decision = decide(state);
      if (decision !== null && decision.events.length > 0 && io.acting !== undefined && io.acting.session === io.actor) {
        requireLiveActor({ session: io.acting.session, clock: io.acting.clock(state) }, decision.events, io.now);
      }
    } catch (error) {
      throw asBatonError(error, io.acting?.name);
    }
    if (decision === null || decision.events.length === 0) return { state, decision, appended: [], deduplicated: false };
    try {
      const result = await io.store.append(
        // The command's actor, unless the decision names one (a heartbeat is its own session's).
        decision.events.map((e) => ({ ...e, actor: e.actor ?? io.actor, at: io.now })),
        { expectedVersion: decision.expected, ...(decision.idempotencyKey !== undefined ? { idempotencyKey: decision.idempotencyKey } : {}) },
      );
      if (result.deduplicated) return { state: await io.read(), decision, appended: result.events, deduplicated: true };
      if (io.evolve) for (const event of result.events) state = io.evolve(state, io.catalog.upcast(event));
      return { state, decision, appended: result.events, deduplicated: false };
    } catch (error) {
      if (error instanceof ConflictError && attempt < maxRetries) continue;
      throw error;
    }
  }
}
