import type { BatonEvent } from '../../events/baton-event.js';
import type { EventCatalog } from '../../events/catalog.js';
import { SESSION_ID_PATTERN } from '../../events/coordination/vocabulary.js';
import { WU_ID_PATTERN } from '../../events/work-units/terms.js';
import type { WorkUnitsConfig } from '../../projections/work-units/settings.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import type { WorkUnitsState } from '../../projections/work-units/state.js';
import { ownValue } from '../../projections/own-keys.js';
import type { z } from 'zod';
import { describeZodIssues } from '../../events/validation.js';
import { InputProblems, invalidField } from '../errors.js';
import type { EventStore } from '../store/contract.js';
import { runProjection } from '../store/projection-runner.js';
import { asBatonError, handleCommand, type Handled } from '../store/handle-command.js';
import type { Decision, ProposedEvent } from '../../deciders/decision.js';
import { requireLiveActor } from '../../deciders/acting-session.js';
import type { WuCommandState } from '../../deciders/work-units.js';

/**
 * What every work-unit operation needs: the store, the catalog, the settings, the clock value and
 * who acts. The CLI builds one per command; tests and the library can build their own.
 */
export interface WorkUnitsEnv {
  store: EventStore;
  catalog: EventCatalog;
  config: WorkUnitsConfig;
  now: string;
  /** `--session` / `BATON_SESSION`. */
  session: string | undefined;
  /** How the surface names where `session` came from (`--session`, `BATON_SESSION`), for its refusal. */
  sessionName?: string | undefined;
  /** The actor recorded on appended events. */
  actor: string;
  workspace: string;
  cacheDir?: string | undefined;
  /** Where non-fatal problems go (the CLI's stderr warning). */
  warn?: ((message: string) => void) | undefined;
}

export async function loadWorkUnits(env: WorkUnitsEnv, to?: number): Promise<{ state: WorkUnitsState; seq: number }> {
  const run = await runProjection(env.store, workUnitsStateProjection, {
    catalog: env.catalog,
    now: env.now,
    ...(to !== undefined ? { to } : {}),
    ...(env.cacheDir !== undefined && to === undefined ? { cacheDir: env.cacheDir } : {}),
  });
  return { state: run.state, seq: run.seq };
}

/** The acting session as a `session_…` id the events can carry, else null. */
export function sessionOf(env: WorkUnitsEnv): string | null {
  return env.session !== undefined && SESSION_ID_PATTERN.test(env.session) ? env.session : null;
}

/**
 * Who the rules see acting: the session the surface was told as given (an id, or a token that names
 * no live session, which the handler then refuses UNKNOWN_SESSION), else null.
 */
export function actingSessionOf(env: WorkUnitsEnv): string | null {
  return env.session ?? null;
}

/** A WU id, named by its domain field (`wu`; the CLI calls its argument `WU`). */
export function checkWuId(id: string, field = 'wu'): string {
  if (!WU_ID_PATTERN.test(id)) throw invalidField(`must match ^WU-[0-9]{1,9}$, got ${JSON.stringify(id)}`, field);
  return id;
}

/**
 * A command's fields checked by their domain names (`dependencies`, `next_steps`): every problem
 * named by its field, which each surface names its own way (the CLI's flag, the MCP argument).
 */
export function checkFields<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new InputProblems(describeZodIssues(parsed.error));
}

/** The appended events as a command reports them: seq and type. */
export function appendedEvents(events: readonly { seq: number; type: string }[]): { seq: number; type: string }[] {
  return events.map((e) => ({ seq: e.seq, type: e.type }));
}

/**
 * A work-unit command's state for its decider: the version of `stream` read before the fold, so an
 * event landing in between makes the append conflict (and the handler decide again). The fold is
 * the command's one read of the log: it also holds the acting session's liveness facts.
 */
export function readStreamAndFold(env: WorkUnitsEnv, stream: string): () => Promise<WuCommandState> {
  return async () => {
    const version = await env.store.streamVersion(stream);
    return { version, fold: (await loadWorkUnits(env)).state };
  };
}

/** A decider's state that holds the fold (a stream version, the log position, what else it read beside it). */
type WithFold = Pick<WuCommandState, 'fold'>;

const foldOf = (state: WithFold | WorkUnitsState): WorkUnitsState => ('fold' in state ? state.fold : state);

/**
 * A work-unit command through the one command handler, acting as the env's actor at its time; a
 * decision recorded as a session that does not exist or has ended is refused (UNKNOWN_SESSION),
 * judged from the same fold the decider read.
 */
export function runWorkUnitsCommand<S extends WithFold | WorkUnitsState, R>(
  env: WorkUnitsEnv,
  read: () => Promise<S>,
  decide: (state: S) => Decision<R> | null,
  evolve?: (state: S, event: BatonEvent) => S,
): Promise<Handled<S, R>> {
  const session = env.session;
  const acting = session === undefined ? undefined : { session, name: env.sessionName, clock: (state: S) => ownValue(foldOf(state).sessions, session) };
  return handleCommand(
    { store: env.store, catalog: env.catalog, actor: env.actor, now: env.now, read, acting, ...(evolve !== undefined ? { evolve } : {}) },
    decide,
  );
}

/**
 * The handler's identity check for a work-unit append that records facts without a decision (a
 * probe's observations, an import): when the events would be recorded as the acting session, it
 * must exist and not have ended in `state` (the fold the caller read), or the batch must start it.
 */
export function requireLiveActingSession(env: WorkUnitsEnv, state: WorkUnitsState, events: readonly ProposedEvent[]): void {
  const session = env.session;
  if (session === undefined || session !== env.actor || events.length === 0) return;
  try {
    requireLiveActor({ session, clock: ownValue(state.sessions, session) }, events, env.now);
  } catch (error) {
    throw asBatonError(error, env.sessionName);
  }
}
