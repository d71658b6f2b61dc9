import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStoreConformance } from '../src/conformance/index.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';

describeStoreConformance('jsonl', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'baton-conformance-'));
  JsonlEventStore.initWorkspace(dir);
  const handles: JsonlEventStore[] = [];
  const open = (): JsonlEventStore => {
    const store = new JsonlEventStore(dir);
    handles.push(store);
    return store;
  };
  return {
    store: open(),
    // A separate store object on the same workspace: its own tail, index and write descriptor.
    openAnother: async () => open(),
    cleanup: async () => {
      for (const handle of handles) await handle.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
