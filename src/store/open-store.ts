import type { EventCatalog } from '../../events/catalog.js';
import type { LogRecoveredData } from '../../events/log.js';
import { BatonError, ErrorCode } from '../errors.js';
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
  lockTimeoutMs?: number;
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
        ...(options.lockTimeoutMs !== undefined ? { lockTimeoutMs: options.lockTimeoutMs } : {}),
      });
    case 'postgres':
      throw new BatonError(ErrorCode.STORE_UNAVAILABLE, 'the PostgreSQL adapter is not part of this build yet; nothing was written', {
        kind: 'postgres',
      });
  }
}
