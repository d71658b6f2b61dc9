import { afterAll, beforeAll } from 'vitest';
import { describeStoreConformance } from '../../src/conformance/index.js';
import type { PostgresEventStore } from '../../src/store/postgres/postgres-store.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { newWorkspaceId, openOn } from './postgres-harness.js';

// The store conformance suite, unchanged, against a real PostgreSQL server: every scenario gets a
// fresh workspace in one database, and "another handle" is a second adapter with its own pool.
let cluster: PostgresCluster;

beforeAll(async () => {
  cluster = await startPostgresCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

describeStoreConformance('postgres', async () => {
  const workspace = newWorkspaceId('conformance');
  const handles: PostgresEventStore[] = [];
  const open = async (): Promise<PostgresEventStore> => {
    const store = await openOn(cluster, workspace);
    handles.push(store);
    return store;
  };
  return {
    store: await open(),
    openAnother: open,
    cleanup: async () => {
      for (const handle of handles) await handle.close();
    },
  };
});
