import { describe, it } from 'vitest';
import type { EventStore } from '../store/contract.js';
import { A2A_CONFORMANCE_CASES, GROUPS, type A2AConformanceCaseId, type A2AConformanceProfile } from './a2a/cases.js';
import { CONCURRENCY_CASES } from './a2a/concurrency-cases.js';
import { CONVERGENCE_CASES } from './a2a/convergence-cases.js';
import { IDEMPOTENCY_CASES } from './a2a/idempotency-cases.js';
import { RECEIPT_CASES } from './a2a/receipt-cases.js';
import { ROUTING_CASES } from './a2a/routing-cases.js';
import { SCHEMA_CASES } from './a2a/schema-cases.js';
import { VISIBILITY_CASES } from './a2a/visibility-cases.js';
import { World, type CaseBody } from './a2a/world.js';
import type { ConformanceFactory, ConformanceHarness } from './store-conformance.js';

export {
  A2A_CONFORMANCE_CASES,
  A2A_CONFORMANCE_NOW,
  A2A_CONFORMANCE_WORKSPACE_ID,
  type A2AConformanceCaseId,
  type A2AConformanceProfile,
} from './a2a/cases.js';

/**
 * The A2A conformance suite (coordination.md §13): one vitest case per line of the spec's list —
 * schema, visibility, routing, receipts, convergence, idempotency, concurrency — each starting from
 * an empty store and driving Baton's A2A operations (start and end sessions, send, read the inbox,
 * drain, watch, converged) through the library only, then checking results through the views.
 * Nothing here knows how an adapter keeps its log, so the in-memory, JSONL and PostgreSQL adapters
 * (and any hosted transport adapter) run it unchanged, under the `local` and the `hosted` profile.
 *
 * Two entry points:
 * - `describeA2AConformance(adapterName, factory, { profile })`, shaped like the store suite's
 *   `describeStoreConformance`: the factory hands over a fresh, empty {@link ConformanceHarness}
 *   (so the concurrency cases can open several handles on one log);
 * - `runA2AConformance({ createStore, profile })`, the spec's name: `createStore` may return a bare
 *   `EventStore` (then "another handle" is the same instance) or a harness; it registers the same
 *   cases through `describeA2AConformance`.
 *
 * The hosted profile uses the workspace id {@link A2A_CONFORMANCE_WORKSPACE_ID}. Two cases are
 * about one profile (V7, R9); under the other profile they check that profile's side of the same
 * rule (local: another workspace id is read; a signal without one is accepted and has none).
 */

export interface A2AConformanceOptions {
  /** Default `local`. */
  profile?: A2AConformanceProfile;
}

/** What `runA2AConformance`'s `createStore` returns: a fresh, empty store, or a harness around one. */
export type A2AStoreFactory = () => Promise<EventStore | ConformanceHarness>;

export interface RunA2AConformanceOptions {
  createStore: A2AStoreFactory;
  profile: A2AConformanceProfile;
  /** Names the describe block; default `adapter`. */
  adapterName?: string;
}

/** Every case of the list, by id: one file per group of the spec (a2a/*-cases.ts). */
const CASES: Record<A2AConformanceCaseId, CaseBody> = {
  ...SCHEMA_CASES,
  ...VISIBILITY_CASES,
  ...ROUTING_CASES,
  ...RECEIPT_CASES,
  ...CONVERGENCE_CASES,
  ...IDEMPOTENCY_CASES,
  ...CONCURRENCY_CASES,
};

// ---- registration ------------------------------------------------------------------------------

/**
 * Register every case of coordination.md §13 as one vitest `it` under
 * `A2A conformance: <adapter> (<profile> profile)`, grouped as the spec groups them. Each case gets
 * a fresh harness from `factory` (an empty store) and cleans it up however the case ends.
 */
export function describeA2AConformance(adapterName: string, factory: ConformanceFactory, options: A2AConformanceOptions = {}): void {
  const profile = options.profile ?? 'local';
  describe(`A2A conformance: ${adapterName} (${profile} profile)`, () => {
    for (const group of GROUPS) {
      describe(group, () => {
        for (const [id, spec] of Object.entries(A2A_CONFORMANCE_CASES) as [A2AConformanceCaseId, (typeof A2A_CONFORMANCE_CASES)[A2AConformanceCaseId]][]) {
          if (spec.group !== group) continue;
          it(`${id} ${spec.behaviour}`, async () => {
            const harness = await factory();
            try {
              await CASES[id](new World(harness, profile));
            } finally {
              await harness.cleanup();
            }
          });
        }
      });
    }
  });
}

function isHarness(value: EventStore | ConformanceHarness): value is ConformanceHarness {
  return 'openAnother' in value && 'cleanup' in value && 'store' in value;
}

/**
 * The spec's entry point (coordination.md §13): `runA2AConformance({ createStore, profile })`
 * registers the same cases as {@link describeA2AConformance}. A bare store stands for its own
 * "other handle" (the concurrency cases then interleave on one instance) and is closed after each
 * case; a harness is used as is.
 */
export function runA2AConformance(options: RunA2AConformanceOptions): void {
  const factory: ConformanceFactory = async () => {
    const made = await options.createStore();
    if (isHarness(made)) return made;
    return { store: made, openAnother: async () => made, cleanup: () => made.close() };
  };
  describeA2AConformance(options.adapterName ?? 'adapter', factory, { profile: options.profile });
}
