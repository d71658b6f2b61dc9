import { describeA2AConformance } from '../../src/conformance/index.js';
import { postgresConformanceFactory } from '../helpers/conformance-factories.js';

// The A2A conformance suite (coordination.md §13), unchanged, against a real PostgreSQL server,
// under both profiles: every case gets a fresh workspace in one database.
const postgres = postgresConformanceFactory('a2a');

describeA2AConformance('postgres', postgres, { profile: 'local' });
describeA2AConformance('postgres', postgres, { profile: 'hosted' });
