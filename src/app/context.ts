import type { EventCatalog } from '../../events/catalog.js';
import type { EventStore } from '../store/contract.js';

/**
 * What a command needs to run, whichever surface calls it (the CLI, the MCP server, a Claude Code
 * hook, the dashboard): the workspace, the clock read once, who acts, the catalog and the store, and
 * where a warning goes. The CLI's CommandContext is one; the layers below the surfaces (flows,
 * hooks, the tasks environment) take this, never the CLI's class.
 */
export interface AppContext {
  /** The command's clock (BATON_NOW or the time it started), ISO UTC. */
  readonly now: string;
  /** Who records the facts: the acting session, else the agent identity, else `system`. */
  readonly actor: string;
  /** The acting session once resolveSession() ran (a display name becomes its id). */
  readonly session: string | undefined;
  readonly env: NodeJS.ProcessEnv;
  /** Where warnings go: spoken on stderr when a person reads (`human`), else carried in the envelope. */
  readonly output: { readonly mode: string; warn(text: string): void };
  resolveSession(): Promise<void>;
  workspace(): Promise<string>;
  cacheDir(): Promise<string>;
  catalog(): Promise<EventCatalog>;
  store(): Promise<EventStore>;
}
