import type { EventCatalog } from '../../events/catalog.js';
import { coordinationStateProjection } from '../../projections/coordination/roster.js';
import type { CoordinationState } from '../../projections/coordination/state.js';
import type { EventStore } from '../store/contract.js';
import { runProjection } from '../store/projection-runner.js';
import type { CoordinationSettings } from './settings-values.js';

/**
 * What every coordination operation needs: the store, the catalog, the settings, the clock value,
 * and who acts. The CLI builds one per command; the conformance suite builds its own over any store.
 */
export interface CoordinationEnv {
  store: EventStore;
  catalog: EventCatalog;
  settings: CoordinationSettings;
  /** The command's clock (ISO). Long-running watchers pass a function instead (see watch). */
  now: string;
  /** `--session` / `BATON_SESSION`. */
  session: string | undefined;
  /** How the surface names where `session` came from (`--session`, `BATON_SESSION`), for its refusal. */
  sessionName?: string | undefined;
  /** `BATON_AGENT_IDENTITY`. */
  envIdentity: string | undefined;
  /** `.baton/cache/`; without it every fold starts from scratch. */
  cacheDir?: string | undefined;
  /** `.baton/hooks/pending/`; without it nothing is enqueued for hooks. */
  pendingDir?: string | undefined;
}

/** The actor recorded on appended events: the acting session, else the env identity, else system. */
export function actorOf(env: CoordinationEnv): string {
  return env.session ?? env.envIdentity ?? 'system';
}

export async function loadState(env: CoordinationEnv): Promise<{ state: CoordinationState; seq: number }> {
  const run = await runProjection(env.store, coordinationStateProjection, {
    catalog: env.catalog,
    now: env.now,
    ...(env.cacheDir !== undefined ? { cacheDir: env.cacheDir } : {}),
  });
  return { state: run.state, seq: run.seq };
}
