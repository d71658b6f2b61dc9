import { describeStoreConformance } from '../src/conformance/index.js';
import { jsonlConformanceFactory } from './helpers/conformance-factories.js';

// The store conformance suite on the JSONL adapter.
describeStoreConformance('jsonl', jsonlConformanceFactory('baton-conformance-'));
