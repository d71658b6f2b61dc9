export { describeStoreConformance, type ConformanceFactory, type ConformanceHarness } from './store-conformance.js';
export {
  A2A_CONFORMANCE_CASES,
  A2A_CONFORMANCE_NOW,
  A2A_CONFORMANCE_WORKSPACE_ID,
  describeA2AConformance,
  runA2AConformance,
  type A2AConformanceCaseId,
  type A2AConformanceOptions,
  type A2AConformanceProfile,
  type A2AStoreFactory,
  type RunA2AConformanceOptions,
} from './a2a-conformance.js';
