import type { EventCatalog } from '../../events/catalog.js';
import type { LogRecoveredData, LogRepairedData } from '../../events/log.js';
import type { EventStore } from './contract.js';
import { JsonlEventStore } from './jsonl/jsonl-store.js';
import type { StoreConfig } from './store-config.js';

export interface OpenStoreOptions {
  workspace: string;
  config: StoreConfig;
  catalog: EventCatalog;
  now: () => string;
  actor: string;
  onRecovered?: (report: LogRecoveredData) => void;
  onRepaired?: (report: LogRepairedData) => void;
  lockTimeoutMs?: number;
  /** JSONL only: verify() on worker threads from this many bytes of log (JsonlStoreOptions.parallelVerifyMinBytes). */
  parallelVerifyMinBytes?: number;
}

/** The adapter the workspace is configured for. */
export async function openStore(options: OpenStoreOptions): Promise<EventStore> {
  switch (options.config.kind) {
    case 'jsonl':
      return new JsonlEventStore(options.workspace, {
        catalog: options.catalog,
        now: options.now,
        actor: options.actor,
        ...(options.onRecovered ? { onRecovered: options.onRecovered } : {}),
        ...(options.onRepaired ? { onRepaired: options.onRepaired } : {}),
        ...(options.lockTimeoutMs !== undefined ? { lockTimeoutMs: options.lockTimeoutMs } : {}),
        ...(options.parallelVerifyMinBytes !== undefined ? { parallelVerifyMinBytes: options.parallelVerifyMinBytes } : {}),
      });
    case 'postgres': {
      // Loaded only here, so a JSONL workspace never loads the PostgreSQL driver.
      const { openPostgresStore } = await import('./postgres/open-postgres-store.js');
      return openPostgresStore({
        url: options.config.url,
        workspace_id: options.config.workspace_id,
        catalog: options.catalog,
        now: options.now,
        actor: options.actor,
      });
    }
  }
}
