import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeA2AConformance, type ConformanceFactory } from '../../src/conformance/index.js';
import { JsonlEventStore } from '../../src/store/jsonl/jsonl-store.js';

// The A2A conformance suite (coordination.md §13) on the JSONL adapter, under both profiles. Each
// case gets a fresh workspace; "another handle" is a separate store object on the same workspace
// (its own tail, index and write descriptor), as another process would open it.
const jsonl: ConformanceFactory = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'baton-a2a-conformance-'));
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

describeA2AConformance('jsonl', jsonl, { profile: 'local' });
describeA2AConformance('jsonl', jsonl, { profile: 'hosted' });
