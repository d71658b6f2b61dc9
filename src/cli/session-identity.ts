import type { EventCatalog } from '../../events/catalog.js';
import type { NewEvent } from '../../events/envelope.js';
import { SessionStatus } from '../../events/coordination/vocabulary.js';
import type { CoordinationState } from '../../projections/coordination/state.js';
import type { EventStore } from '../store/contract.js';
import { BatonError } from '../errors.js';
import { storeExists } from '../store/jsonl/layout.js';

/**
 * Who `--session` / `BATON_SESSION` names. Reads and writes accept a live session's
 * display name wherever a session id goes; a write whose actor would be a session that does not
 * exist or has ended is refused (UNKNOWN_SESSION, exit 2, nothing appended), so a typo can no longer
 * become the recorded actor and let the next claimant take a work unit over.
 */
export interface IdentityInputs {
  store: () => Promise<EventStore>;
  catalog: () => Promise<EventCatalog>;
  cacheDir: () => Promise<string>;
  now: string;
}

async function coordinationFold(inputs: IdentityInputs): Promise<CoordinationState> {
  const { loadState } = await import('../coordination/env.js');
  const { state } = await loadState({ store: await inputs.store(), catalog: await inputs.catalog(), now: inputs.now, cacheDir: await inputs.cacheDir() } as Parameters<typeof loadState>[0]);
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

/** Throws UNKNOWN_SESSION unless `session` is a started session that has not ended. */
export async function requireLiveSession(inputs: IdentityInputs, session: string, field: string): Promise<void> {
  const record = (await coordinationFold(inputs)).sessions.get(session);
  if (record !== undefined && record.stored_status === SessionStatus.active) return;
  const why = record === undefined ? 'no session has that id or live display name' : `it ended (${record.stored_status})`;
  throw new BatonError('UNKNOWN_SESSION', `${field}: ${session} names no live session (${why}); start one with \`baton session start\`. Nothing was appended`, {
    field,
    session,
  });
}

/**
 * The store with every append checked: when an event would record `session()` as its actor (given,
 * or the store's default actor), that session must be live — or be started by the same batch.
 * Checked once per command.
 */
export function guardSessionWrites(store: EventStore, session: () => string | undefined, defaultActor: () => string, check: (session: string) => Promise<void>): EventStore {
  let checked: string | undefined;
  const append: EventStore['append'] = async (events: readonly NewEvent[], options) => {
    const acting = session();
    // A batch that itself starts the acting session (an import, a fixture) makes it live.
    const startsIt = (): boolean => events.some((e) => e.type === 'session.started' && (e.data as { session_id?: unknown }).session_id === acting);
    if (acting !== undefined && checked !== acting && events.some((e) => (e.actor ?? defaultActor()) === acting) && !startsIt()) {
      await check(acting);
      checked = acting;
    }
    return store.append(events, options);
  };
  return new Proxy(store, {
    get(target, property) {
      if (property === 'append') return append;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
