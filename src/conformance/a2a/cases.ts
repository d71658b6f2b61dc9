/** The A2A conformance case list of coordination.md §13 and the names every part of the suite shares. */

export type A2AConformanceProfile = 'local' | 'hosted';

/** The configured `a2a.workspace_id` of the hosted profile. */
export const A2A_CONFORMANCE_WORKSPACE_ID = 'ws-conformance';
/** Every operation of the suite runs at this clock value, so no session is ever abandoned. */
export const A2A_CONFORMANCE_NOW = '2026-04-17T10:00:00.000Z';

/** The case list of coordination.md §13, verbatim: the ids and behaviours the suite registers. */
export const A2A_CONFORMANCE_CASES = {
  SC1: { group: 'Schema', behaviour: 'A valid signal round-trips: the contract fields read back equal to those sent.' },
  SC2: { group: 'Schema', behaviour: 'A `schema_version` other than `A2A.V1` is rejected; a record without one reads as legacy (§5.4).' },
  SC3: { group: 'Schema', behaviour: 'An `intent` or `interrupt_class` outside its enum is rejected.' },
  SC4: { group: 'Schema', behaviour: 'An empty or all-space message, or an optional string empty after trimming, is rejected.' },
  SC5: { group: 'Schema', behaviour: 'A receipt whose `delivery_state` is outside the three values is rejected.' },
  SC6: {
    group: 'Schema',
    behaviour: '`target_agent` ≠ `recipients[0]` is rejected on write; a legacy `target_agent`-only record reads as `recipients: [target_agent]`.',
  },
  V1: { group: 'Visibility', behaviour: 'A broadcast is visible to every reader but its sender.' },
  V2: { group: 'Visibility', behaviour: 'A directed signal is visible only to its recipients.' },
  V3: { group: 'Visibility', behaviour: 'The sender never sees its own signal as unread.' },
  V4: { group: 'Visibility', behaviour: 'The inbox for X is the signals directed to X plus broadcasts, in append order.' },
  V5: { group: 'Visibility', behaviour: '`wu`, `thread` and `intent` filters only narrow the result.' },
  V6: { group: 'Visibility', behaviour: 'Reading without marking (and observer mode) writes nothing.' },
  V7: { group: 'Visibility', behaviour: 'Hosted profile: a signal of another `workspace_id` is invisible.' },
  R1: { group: 'Routing', behaviour: "A live `session_id` resolves to that session's canonical identity." },
  R2: { group: 'Routing', behaviour: 'An `agent_identity` resolves to itself, live or known offline.' },
  R3: { group: 'Routing', behaviour: 'A display name resolves to the canonical identity, never persisted as itself.' },
  R4: { group: 'Routing', behaviour: 'A session without `agent_identity` is addressed by its `session_id`.' },
  R5: { group: 'Routing', behaviour: 'An unknown token fails and persists nothing.' },
  R6: { group: 'Routing', behaviour: 'An ambiguous token fails and persists nothing.' },
  R7: { group: 'Routing', behaviour: 'Several recipients each see the signal; duplicates collapse.' },
  R8: { group: 'Routing', behaviour: "A new record's `target_agent` equals `recipients[0]`; a broadcast has none." },
  R9: { group: 'Routing', behaviour: 'Hosted profile rejects a signal without `workspace_id`; local accepts it.' },
  R10: { group: 'Routing', behaviour: "A reply inherits thread, axes, and the parent's sender as recipient." },
  R11: { group: 'Routing', behaviour: 'An explicit thread on a reply wins over inheritance.' },
  R12: { group: 'Routing', behaviour: 'A directed root defaults to `priority`, a broadcast to `advisory`.' },
  C1: { group: 'Receipt', behaviour: 'The first read creates one `delivered` receipt, for that reader only.' },
  C2: { group: 'Receipt', behaviour: 'A second read creates none.' },
  C3: { group: 'Receipt', behaviour: "A recipient's same-thread AGREE gives `acked`, REJECT gives `rejected`." },
  C4: { group: 'Receipt', behaviour: 'A promotion creates the receipt when none existed.' },
  C5: { group: 'Receipt', behaviour: "A non-recipient's AGREE/REJECT changes nothing." },
  C6: { group: 'Receipt', behaviour: 'An AGREE in another thread changes nothing.' },
  C7: { group: 'Receipt', behaviour: 'Two readers have independent state.' },
  C8: { group: 'Receipt', behaviour: 'Sessions sharing an `agent_identity` share state.' },
  C9: { group: 'Receipt', behaviour: '`delivered` never downgrades `acked`; a later REJECT overrides an earlier AGREE.' },
  C10: { group: 'Receipt', behaviour: 'A sender gets no receipt for its own signal.' },
  K1: { group: 'Convergence', behaviour: 'A PROPOSE whose recipients all AGREE is `converged`.' },
  K2: { group: 'Convergence', behaviour: 'A missing AGREE leaves it `open`, listing the pending identity.' },
  K3: { group: 'Convergence', behaviour: 'A COUNTER after agreement reopens it.' },
  K4: { group: 'Convergence', behaviour: 'A required REJECT makes it `rejected`.' },
  K5: { group: 'Convergence', behaviour: 'A broadcast root never converges.' },
  K6: { group: 'Convergence', behaviour: 'Votes before the current proposal, or from identities not required, change nothing.' },
  K7: { group: 'Convergence', behaviour: 'The result does not depend on receipts or on the order of reads.' },
  K8: { group: 'Convergence', behaviour: "A reply's vote counts in the thread it was posted to." },
  I1: { group: 'Idempotency', behaviour: 'Same sender, same key, same content: one signal, the same `signal_id` returned.' },
  I2: { group: 'Idempotency', behaviour: 'Same sender, same key, different content: conflict, nothing appended.' },
  I3: { group: 'Idempotency', behaviour: 'Same key, different senders: two signals.' },
  I4: { group: 'Idempotency', behaviour: 'No key: every send appends.' },
  I5: { group: 'Idempotency', behaviour: 'Repeated marking of the same signal by the same reader: one effective receipt.' },
  X1: { group: 'Concurrency', behaviour: 'N processes sending at once: every signal stored, `seq` contiguous, none lost.' },
  X2: { group: 'Concurrency', behaviour: 'Concurrent marking of different signals: every receipt stored.' },
  X3: { group: 'Concurrency', behaviour: 'Concurrent marking of one signal by one reader: one effective `delivered`.' },
  X4: { group: 'Concurrency', behaviour: 'Concurrent sends with one idempotency key: exactly one signal.' },
  X5: { group: 'Concurrency', behaviour: 'A subscriber running while others append: each visible signal delivered once, in `seq` order.' },
  X6: { group: 'Concurrency', behaviour: 'Concurrent session starts: distinct display names at every position.' },
} as const;

export type A2AConformanceCaseId = keyof typeof A2A_CONFORMANCE_CASES;

export const GROUPS = ['Schema', 'Visibility', 'Routing', 'Receipt', 'Convergence', 'Idempotency', 'Concurrency'] as const;

/** The cases of one group of the list, each a body run in a fresh {@link World}. */
export type CasesOf<G extends (typeof GROUPS)[number], Body> = {
  [K in A2AConformanceCaseId as (typeof A2A_CONFORMANCE_CASES)[K]['group'] extends G ? K : never]: Body;
};
