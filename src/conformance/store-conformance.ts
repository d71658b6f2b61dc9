import { describe } from 'vitest';
import { describeAllOrNothing } from './store/append-all-or-nothing.js';
import { describeExpectedVersions } from './store/append-expected-versions.js';
import { describeIdempotency } from './store/append-idempotency.js';
import { describeAppendPositions } from './store/append-positions.js';
import { scenariosFor, type ConformanceFactory } from './store/harness.js';
import { describeInvalidInput } from './store/invalid-input.js';
import { describeProperties } from './store/properties.js';
import { describeReads } from './store/reads.js';
import { describeSubscribe } from './store/subscribe.js';
import { describeImport, describeVerify } from './store/verify-and-import.js';

export type { ConformanceFactory, ConformanceHarness } from './store/harness.js';

/**
 * The adapter conformance suite: every behaviour of the store contract (architecture.md, "The store
 * contract"), one `it` per behaviour, plus two fast-check properties (a reference model of append,
 * and concurrent appenders). Any adapter runs it by handing over a factory; nothing here knows how
 * an adapter keeps its log.
 */
export function describeStoreConformance(adapterName: string, factory: ConformanceFactory): void {
  const scenarios = scenariosFor(factory);
  describe(`store conformance: ${adapterName}`, () => {
    describeAppendPositions(scenarios);
    describeAllOrNothing(scenarios);
    describeExpectedVersions(scenarios);
    describeIdempotency(scenarios);
    describeReads(scenarios);
    describeSubscribe(scenarios);
    describeVerify(scenarios);
    describeImport(scenarios);
    describeInvalidInput(scenarios);
    describeProperties(scenarios);
  });
}
