import { describeA2AConformance } from '../../src/conformance/index.js';
import { jsonlConformanceFactory } from '../helpers/conformance-factories.js';

// The A2A conformance suite (coordination.md §13) on the JSONL adapter, under both profiles.
const jsonl = jsonlConformanceFactory('baton-a2a-conformance-');

describeA2AConformance('jsonl', jsonl, { profile: 'local' });
describeA2AConformance('jsonl', jsonl, { profile: 'hosted' });
