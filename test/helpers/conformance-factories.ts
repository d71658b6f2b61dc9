import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { ConformanceFactory } from '../../src/conformance/index.js';
import { JsonlEventStore } from '../../src/store/jsonl/jsonl-store.js';
import type { PostgresEventStore } from '../../src/store/postgres/postgres-store.js';
import { newWorkspaceId, openOn } from '../postgres/postgres-harness.js';
import { startPostgresCluster, type PostgresCluster } from './postgres-cluster.js';

/**
 * The harnesses the conformance suites (store and A2A) run on, one per adapter, so every suite
 * opens its stores the same way. Each case gets a fresh workspace; "another handle" is a separate
 * store object on the same workspace, as another process would open it.
 */

/** JSONL: a fresh temporary workspace; another handle has its own tail, index and write descriptor. */
export function jsonlConformanceFactory(tempPrefix: string): ConformanceFactory {
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), tempPrefix));
    JsonlEventStore.initWorkspace(dir);
    const handles: JsonlEventStore[] = [];
    const open = (): JsonlEventStore => {
      const store = new JsonlEventStore(dir);
      handles.push(store);
      return store;
    };
    return {
      store: open(),
      openAnother: async () => open(),
      cleanup: async () => {
        for (const handle of handles) await handle.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  };
}

/**
 * PostgreSQL: starts one real server for the test file (beforeAll/afterAll) and returns a factory
 * that gives every case a fresh workspace in it; another handle is a second adapter with its own pool.
 */
export function postgresConformanceFactory(workspaceLabel: string): ConformanceFactory {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  return async () => {
    const workspace = newWorkspaceId(workspaceLabel);
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
}
