import type { EventCatalog } from '../../events/catalog.js';
import { SESSION_ID_PATTERN } from '../../events/coordination/vocabulary.js';
import { WU_ID_PATTERN } from '../../events/work-units/terms.js';
import type { WorkUnitsConfig } from '../../projections/work-units/settings.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import type { WorkUnitsState, WuRecord } from '../../projections/work-units/state.js';
import { invalidInput } from '../errors.js';
import type { EventStore } from '../store/contract.js';
import { runProjection } from '../store/projection-runner.js';
import { handleCommand, type Handled } from '../store/handle-command.js';
import type { Decision } from '../../deciders/decision.js';
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

export function checkWuId(id: string, field = 'WU'): string {
  if (!WU_ID_PATTERN.test(id)) throw invalidInput(`must match ^WU-[0-9]{1,9}$, got ${JSON.stringify(id)}`, field);
  return id;
}

/** The appended events as a command reports them: seq and type. */
export function appendedEvents(events: readonly { seq: number; type: string }[]): { seq: number; type: string }[] {
  return events.map((e) => ({ seq: e.seq, type: e.type }));
}

/**
 * A work-unit command's state for its decider: the version of `stream` read before the fold, so an
 * event landing in between makes the append conflict (and the handler decide again).
 */
export function readStreamAndFold(env: WorkUnitsEnv, stream: string): () => Promise<WuCommandState> {
  return async () => {
    const version = await env.store.streamVersion(stream);
    return { version, fold: (await loadWorkUnits(env)).state };
  };
}

/** A work-unit command through the one command handler, acting as the env's actor at its time. */
export function runWorkUnitsCommand<S, R>(env: WorkUnitsEnv, read: () => Promise<S>, decide: (state: S) => Decision<R> | null): Promise<Handled<S, R>> {
  return handleCommand({ store: env.store, catalog: env.catalog, actor: env.actor, now: env.now, read }, decide);
}
