import { randomUUID } from 'node:crypto';
import type { StoredEvent } from '../../events/envelope.js';
import { createCatalog } from '../../events/index.js';
import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.js';
import type { PostgresEventStore } from '../../src/store/postgres/postgres-store.js';
import type { PostgresCluster } from '../helpers/postgres-cluster.js';

/** Opening adapter instances on a test cluster, one fresh workspace id per call unless given. */
export function newWorkspaceId(label = 'ws'): string {
  return `${label}-${randomUUID()}`;
}

export interface OpenOptions {
  actor?: string;
  maxConnections?: number;
  beforeCommit?: (events: readonly StoredEvent[]) => Promise<void>;
}

export function openOn(cluster: PostgresCluster, workspaceId: string, options: OpenOptions = {}): Promise<PostgresEventStore> {
  return openPostgresStore({
    url: cluster.urlFor(workspaceId),
    catalog: createCatalog(),
    now: () => new Date().toISOString(),
    actor: options.actor ?? 'system',
    ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {}),
    ...(options.beforeCommit ? { beforeCommit: options.beforeCommit } : {}),
  });
}
