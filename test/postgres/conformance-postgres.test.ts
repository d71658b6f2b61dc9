import { describeStoreConformance } from '../../src/conformance/index.js';
import { postgresConformanceFactory } from '../helpers/conformance-factories.js';

// The store conformance suite, unchanged, against a real PostgreSQL server: every scenario gets a
// fresh workspace in one database.
describeStoreConformance('postgres', postgresConformanceFactory('conformance'));
