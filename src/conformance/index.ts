export { describeStoreConformance, type ConformanceFactory, type ConformanceHarness } from './store-conformance.js';
