import type { EventCatalog } from '../../events/catalog.js';
import type { EventStore } from '../store/contract.js';
import type * as StoreAccessModule from './store-access.js';

/** Where warnings go: spoken on stderr when a person reads (`human`), else carried in the envelope. */
export interface AppWarnings {
  readonly mode: string;
  warn(text: string): void;
}

/**
 * What a command needs to run, whichever surface calls it (the CLI, the MCP server, a Claude Code
 * hook, the dashboard): the workspace, the clock read once, who acts, the catalog and the store, and
 * where a warning goes. BatonAppContext (app-context.ts) is the one every surface builds (the CLI's
 * CommandContext extends it); the layers below the surfaces (flows, hooks, the tasks environment,
 * the commands of commands/) take this, never the CLI's class.
 */
export interface AppContext {
  /** The command's clock (BATON_NOW or the time it started), ISO UTC. */
  readonly now: string;
  /** Who records the facts: the acting session, else the agent identity, else `system`. */
  readonly actor: string;
  /** The acting session once resolveSession() ran (a display name becomes its id). */
  readonly session: string | undefined;
  readonly env: NodeJS.ProcessEnv;
  readonly output: AppWarnings;
  resolveSession(): Promise<void>;
  /** A session named by id or by a live session's display name: its id (the token itself when no live session holds that name). */
  sessionIdFor(token: string): Promise<string>;
  /** What the acting session was given as (`--session`, `BATON_SESSION`), for a refusal about it. */
  sessionSource?(): string;
  workspace(): Promise<string>;
  cacheDir(): Promise<string>;
  catalog(): Promise<EventCatalog>;
  store(): Promise<EventStore>;
  /**
   * Check events, config and envelopes with the compiled validators (no zod unless a check fails):
   * the short commands call it before the first catalog() or store(), with store-access.ts when they
   * import it themselves (app-context.ts).
   */
  useCompiledValidation(storeAccess?: typeof StoreAccessModule): void;
}
