import { describeA2AConformance, runA2AConformance } from '../../src/conformance/index.js';
import { MemoryEventStore } from '../../src/store/memory-store.js';

// The A2A conformance suite (coordination.md §13) on the in-memory adapter, under both profiles.
// The local run goes through describeA2AConformance with a harness; the hosted run through the
// spec's runA2AConformance({ createStore, profile }) with a bare store (its own "other handle").
describeA2AConformance(
  'memory',
  async () => {
    const store = new MemoryEventStore();
    return { store, openAnother: async () => store, cleanup: () => store.close() };
  },
  { profile: 'local' },
);

runA2AConformance({ adapterName: 'memory', profile: 'hosted', createStore: async () => new MemoryEventStore() });
