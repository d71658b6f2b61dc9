import { describeStoreConformance } from '../src/conformance/index.js';
import { MemoryEventStore } from '../src/store/memory-store.js';

describeStoreConformance('memory', async () => {
  const store = new MemoryEventStore();
  return {
    store,
    // The in-memory log has no other way in: a second handle is the same instance.
    openAnother: async () => store,
    cleanup: async () => {
      await store.close();
    },
  };
});
