import { afterAll, beforeAll } from 'vitest';
import { describeA2AConformance, type ConformanceFactory } from '../../src/conformance/index.js';
import type { PostgresEventStore } from '../../src/store/postgres/postgres-store.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { newWorkspaceId, openOn } from './postgres-harness.js';

// The A2A conformance suite (coordination.md §13), unchanged, against a real PostgreSQL server,
// under both profiles: every case gets a fresh workspace in one database, and "another handle" is
// a second adapter with its own pool, as another process would open it.
let cluster: PostgresCluster;

beforeAll(async () => {
  cluster = await startPostgresCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

const postgres: ConformanceFactory = async () => {
  const workspace = newWorkspaceId('a2a');
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
};

describeA2AConformance('postgres', postgres, { profile: 'local' });
describeA2AConformance('postgres', postgres, { profile: 'hosted' });
