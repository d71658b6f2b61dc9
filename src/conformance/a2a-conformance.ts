import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EventCatalog } from '../../events/catalog.js';
import { A2A_SCHEMA_VERSION, SYSTEM_IDENTITY } from '../../events/coordination/identities.js';
import { A2AReceiptV1, ReceiptRecordedData } from '../../events/coordination/receipt.js';
import { A2ASignalV1, SignalSentData, toA2ASignalV1 } from '../../events/coordination/signal.js';
import type { BatonEvent } from '../../events/baton-event.js';
import type { NewEvent } from '../../events/envelope.js';
import { createCatalog } from '../../events/index.js';
import type { ConvergenceView } from '../../projections/coordination/convergence.js';
import { resolveToken } from '../../projections/coordination/sessions.js';
import { receiptState, type InboxItem, type InboxView } from '../../projections/coordination/signals.js';
import { applyCoordination, initCoordination, type CoordinationState, type SessionRecord } from '../../projections/coordination/state.js';
import { drainHook, watchSignals, type DrainResult, type WatchDelivery } from '../coordination/delivery.js';
import { loadState, type CoordinationEnv } from '../coordination/env.js';
import { CoordinationErrorCode } from '../coordination/errors.js';
import { readInbox, threadConvergence, type InboxInput } from '../coordination/inbox.js';
import { signalGate } from '../coordination/prep.js';
import { resolveRecipients, sendSignal, type SendResult, type SendSignalInput } from '../coordination/send.js';
import { endSession, startSession, type StartSessionInput } from '../coordination/sessions.js';
import { A2AProfile, coordinationSettingsFrom, type CoordinationSettings } from '../coordination/settings.js';
import { ErrorCode, isBatonError, type BatonError } from '../errors.js';
import type { EventStore } from '../store/contract.js';
import { refusal, sleep, waitUntil } from './async-checks.js';
import type { ConformanceFactory, ConformanceHarness } from './store-conformance.js';

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

export type A2AConformanceProfile = 'local' | 'hosted';

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
  SC6: { group: 'Schema', behaviour: '`target_agent` ≠ `recipients[0]` is rejected on write; a legacy `target_agent`-only record reads as `recipients: [target_agent]`.' },
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

const GROUPS = ['Schema', 'Visibility', 'Routing', 'Receipt', 'Convergence', 'Idempotency', 'Concurrency'] as const;

// ---- the world a case runs in ------------------------------------------------------------------

const NOW = A2A_CONFORMANCE_NOW;
const WS = A2A_CONFORMANCE_WORKSPACE_ID;
const POOL = ['Planck', 'Noether', 'Curie', 'Dirac'] as const;
const CONCURRENCY = 6;

/** A started session as the cases use it: id, canonical (reader) identity, display name. */
interface Who {
  id: string;
  identity: string;
  name: string;
}

interface EnvOptions {
  store?: EventStore;
  settings?: CoordinationSettings;
  envIdentity?: string;
}

interface StoredReceipt {
  seq: number;
  data: ReceiptRecordedData;
}

interface StoredSignal {
  seq: number;
  stream: string;
  data: SignalSentData;
}

/** Deliberately ill-typed input, the way a transport or a caller without types would hand it over. */
function untyped<T>(value: Record<string, unknown>): T {
  return value as unknown as T;
}

const waitFor = (condition: () => boolean, what: string): Promise<void> => waitUntil(condition, what, 15_000);

const idsOf = (items: readonly { signal_id: string }[]): string[] => items.map((s) => s.signal_id);

/** The contract part of an inbox item (its A2A.V1 fields, without the inbox's own keys). */
function contractOf(item: InboxItem): A2ASignalV1 {
  const { seq: _seq, read: _read, delivery_state: _state, sender_display_name: _name, ...contract } = item;
  return contract;
}

class World {
  readonly catalog: EventCatalog = createCatalog();
  readonly settings: CoordinationSettings;

  constructor(
    readonly harness: ConformanceHarness,
    readonly profile: A2AConformanceProfile,
  ) {
    this.settings = {
      sessionTtlSeconds: 4 * 3600,
      displayNamePool: POOL,
      profile: profile === 'hosted' ? A2AProfile.hosted : A2AProfile.local,
      workspaceId: profile === 'hosted' ? WS : undefined,
    };
  }

  get hosted(): boolean {
    return this.profile === 'hosted';
  }

  get store(): EventStore {
    return this.harness.store;
  }

  /** The coordination environment of one command: acting as `as` (a session), else as system. */
  env(as?: Who, options: EnvOptions = {}): CoordinationEnv {
    return {
      store: options.store ?? this.store,
      catalog: this.catalog,
      settings: options.settings ?? this.settings,
      now: NOW,
      session: as?.id,
      envIdentity: options.envIdentity,
    };
  }

  async start(input: StartSessionInput = {}, store?: EventStore): Promise<Who> {
    const { session } = await startSession(this.env(undefined, store ? { store } : {}), input);
    return { id: session.session_id, identity: session.agent_identity ?? session.session_id, name: session.display_name };
  }

  end(who: Who): Promise<unknown> {
    return endSession(this.env(), who.id, 'succeeded');
  }

  send(as: Who | undefined, input: SendSignalInput, options: EnvOptions = {}): Promise<SendResult> {
    return sendSignal(this.env(as, options), input);
  }

  inbox(as: Who | undefined, input: InboxInput = {}, options: EnvOptions = {}): Promise<InboxView> {
    return readInbox(this.env(as, options), input);
  }

  /** What `reader` sees, read or not, without marking anything (read as system, for the reader). */
  async visible(reader: string, filters: Omit<InboxInput, 'for' | 'mark' | 'all'> = {}): Promise<InboxItem[]> {
    return (await readInbox(this.env(), { ...filters, for: reader, mark: false, all: true })).signals;
  }

  /** The unread part of what `reader` sees, without marking. */
  async unread(reader: string): Promise<InboxItem[]> {
    return (await readInbox(this.env(), { for: reader, mark: false })).signals;
  }

  /** `reader`'s folded state for a signal: null (unread), delivered, acked or rejected. */
  async stateOf(signalId: string, reader: string): Promise<string | null> {
    return receiptState(await this.state(), signalId, reader);
  }

  converged(thread: string): Promise<ConvergenceView> {
    return threadConvergence(this.env(), thread);
  }

  drain(token: string): Promise<DrainResult> {
    return drainHook(this.env(), token, () => undefined);
  }

  async watchOnce(token: string): Promise<WatchDelivery[]> {
    const out: WatchDelivery[] = [];
    const handle = await watchSignals(this.env(), token, { once: true, clock: () => NOW, onDelivery: (d) => out.push(d) });
    await handle.done;
    return out;
  }

  async state(): Promise<CoordinationState> {
    return (await loadState(this.env())).state;
  }

  async head(): Promise<number> {
    return (await this.store.head()).seq;
  }

  /** Every event, decoded as the folds receive it (legacy shapes lifted), in seq order. */
  async events(store: EventStore = this.store): Promise<BatonEvent[]> {
    const out: BatonEvent[] = [];
    for await (const event of store.read()) out.push(this.catalog.toBatonEvent(event));
    return out;
  }

  async signals(): Promise<StoredSignal[]> {
    return (await this.events()).filter((e) => e.type === 'signal.sent').map((e) => ({ seq: e.seq, stream: e.stream, data: SignalSentData.parse(e.data) }));
  }

  async receipts(): Promise<StoredReceipt[]> {
    return (await this.events()).filter((e) => e.type === 'receipt.recorded').map((e) => ({ seq: e.seq, data: ReceiptRecordedData.parse(e.data) }));
  }

  /** Run `op`, expect it to fail with `code`, and expect the log to be unchanged. */
  async refusedWithNothingAppended(code: string, op: () => Promise<unknown>, what?: string): Promise<BatonError> {
    const before = await this.store.head();
    const error = await refusal(op(), what);
    expect(error.code, what).toBe(code);
    expect(await this.store.head()).toEqual(before);
    return error;
  }

  /** Initiative INIT-1 (lane L1) and the given WUs in it, appended as their events. */
  async withWus(...wus: string[]): Promise<void> {
    await this.append([{ type: 'initiative.created', stream: 'initiative/INIT-1', data: { initiative: 'INIT-1', title: 'One', slug: null, lanes: ['L1'] } }]);
    for (const wu of wus) await this.append([{ type: 'wu.defined', stream: `wu/${wu}`, data: { wu_id: wu, initiative: 'INIT-1', lane: 'L1', title: wu } }]);
  }

  append(events: readonly NewEvent[]): Promise<unknown> {
    return this.store.append(events.map((e) => ({ at: NOW, ...e })));
  }

  /** A current-shape `signal.sent` record as another writer (a hosted transport, `log append`) would store it. */
  rawSignal(fields: Record<string, unknown>): Record<string, unknown> {
    return {
      schema_version: A2A_SCHEMA_VERSION,
      sender_identity: SYSTEM_IDENTITY,
      recipients: [],
      intent: 'INFO',
      interrupt_class: 'advisory',
      requires_ack: false,
      message: 'from another writer',
      origin: 'remote',
      created_at: NOW,
      sender_session_id: null,
      ...(this.hosted ? { workspace_id: WS } : {}),
      ...fields,
    };
  }

  /** `workspace_id` for a record another writer stores: the configured one when hosted. */
  get workspaceFields(): Record<string, string> {
    return this.hosted ? { workspace_id: WS } : {};
  }
}

type CaseBody = (world: World) => Promise<void>;

// ---- the cases ---------------------------------------------------------------------------------

const CASES: Record<A2AConformanceCaseId, CaseBody> = {
  // ---- Schema ----
  async SC1(w) {
    await w.withWus('WU-1');
    const reviewer = await w.start({ agent_identity: 'reviewer:docs:a' });
    const sender = await w.start();
    const sent = await w.send(sender, {
      message: 'Approve the boundary?',
      to: ['reviewer:docs:a'],
      wu: 'WU-1',
      initiative: 'INIT-1',
      lane: 'L1',
      role: 'reviewer',
      intent: 'PROPOSE',
      requires_ack: true,
      thread: 'boundary-1',
      interrupt_class: 'interrupt',
      idempotency_key: 'sc1-key',
      workspace_id: WS,
    });
    const expected = {
      schema_version: 'A2A.V1',
      signal_id: sent.signal.signal_id,
      sender_identity: sender.identity,
      recipients: [reviewer.identity],
      target_agent: reviewer.identity,
      workspace_id: WS,
      thread_id: 'boundary-1',
      intent: 'PROPOSE',
      interrupt_class: 'interrupt',
      requires_ack: true,
      message: 'Approve the boundary?',
      idempotency_key: 'sc1-key',
      origin: 'local',
      wu_id: 'WU-1',
      initiative: 'INIT-1',
      lane: 'L1',
      role: 'reviewer',
      created_at: NOW,
    };
    expect(sent.signal).toStrictEqual(expected);
    expect(sent.signal.signal_id).toMatch(/^sig-[0-9a-z]{26}$/);
    // The result is exactly the contract: the strict schema accepts it unchanged.
    expect(A2ASignalV1.parse(sent.signal)).toStrictEqual(expected);

    // Read back from the log (on the thread's stream, at the reported seq) ...
    const stored = await w.signals();
    expect(stored.map((s) => [s.seq, s.stream])).toEqual([[sent.seq, 'thread/boundary-1']]);
    expect(toA2ASignalV1(stored[0]!.data)).toStrictEqual(expected);
    expect(stored[0]!.data.sender_session_id).toBe(sender.id);
    // ... and through the inbox view of the recipient.
    const listed = await w.visible(reviewer.identity);
    expect(listed).toHaveLength(1);
    expect(contractOf(listed[0]!)).toStrictEqual(expected);
    expect(listed[0]).toMatchObject({ seq: sent.seq, read: false, delivery_state: null, sender_display_name: sender.name });
  },

  async SC2(w) {
    const reader = await w.start();
    const valid = w.rawSignal({ signal_id: 'sig-0000sc2a', thread_id: 't-sc2', recipients: [reader.identity], target_agent: reader.identity, interrupt_class: 'priority' });
    expect(A2ASignalV1.safeParse(toA2ASignalV1(SignalSentData.parse(valid))).success).toBe(true);
    for (const version of ['A2A.V2', 'a2a.v1', 'A2A.V0', '']) {
      expect(A2ASignalV1.safeParse({ ...toA2ASignalV1(SignalSentData.parse(valid)), schema_version: version }).success, version).toBe(false);
      await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () => w.append([{ type: 'signal.sent', stream: 'thread/t-sc2', data: { ...valid, schema_version: version } }]));
    }
    // Legacy records (no schema_version; LumenFlow's id/sender) are accepted and read as A2A.V1.
    await w.append([
      { type: 'signal.sent', stream: 'thread/sig-0000abcd', data: { signal_id: 'sig-0000abcd', sender_identity: SYSTEM_IDENTITY, recipients: [reader.identity], message: 'old', created_at: '2026-04-17T09:00:00.000Z', ...w.workspaceFields } },
      { type: 'signal.sent', stream: 'thread/sig-1a2b3c4d', data: { id: 'sig-1a2b3c4d', sender: SYSTEM_IDENTITY, message: 'older broadcast', created_at: '2026-04-17T09:00:01.000Z', ...w.workspaceFields } },
    ]);
    const listed = await w.visible(reader.identity);
    expect(listed.map(contractOf)).toStrictEqual([
      {
        schema_version: 'A2A.V1',
        signal_id: 'sig-0000abcd',
        sender_identity: SYSTEM_IDENTITY,
        recipients: [reader.identity],
        target_agent: reader.identity,
        ...w.workspaceFields,
        thread_id: 'sig-0000abcd',
        intent: 'INFO',
        interrupt_class: 'priority',
        requires_ack: false,
        message: 'old',
        origin: 'local',
        created_at: '2026-04-17T09:00:00.000Z',
      },
      {
        schema_version: 'A2A.V1',
        signal_id: 'sig-1a2b3c4d',
        sender_identity: SYSTEM_IDENTITY,
        recipients: [],
        ...w.workspaceFields,
        thread_id: 'sig-1a2b3c4d',
        intent: 'INFO',
        interrupt_class: 'advisory',
        requires_ack: false,
        message: 'older broadcast',
        origin: 'local',
        created_at: '2026-04-17T09:00:01.000Z',
      },
    ]);
    for (const item of listed) expect(A2ASignalV1.safeParse(contractOf(item)).success).toBe(true);
    expect((await w.state()).findings).toEqual([]);
  },

  async SC3(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    for (const bad of [{ intent: 'MAYBE' }, { intent: 'agree' }, { interrupt_class: 'loud' }, { interrupt_class: 'PRIORITY' }]) {
      await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () => w.send(s2, untyped<SendSignalInput>({ message: 'x', to: [s1.id], ...bad })));
      const record = w.rawSignal({ signal_id: 'sig-0000sc3a', thread_id: 't-sc3', ...bad });
      await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () => w.append([{ type: 'signal.sent', stream: 'thread/t-sc3', data: record }]));
      const contract = { ...toA2ASignalV1(SignalSentData.parse(w.rawSignal({ signal_id: 'sig-0000sc3a', thread_id: 't-sc3' }))), ...bad };
      expect(A2ASignalV1.safeParse(contract).success, JSON.stringify(bad)).toBe(false);
    }
    // Every value of both enums is accepted.
    for (const intent of ['INFO', 'PROPOSE', 'COUNTER', 'AGREE', 'REJECT'] as const) {
      for (const interrupt_class of ['interrupt', 'priority', 'advisory'] as const) {
        const sent = await w.send(s2, { message: `${intent} ${interrupt_class}`, to: [s1.id], intent, interrupt_class, thread: 't-sc3' });
        expect([sent.signal.intent, sent.signal.interrupt_class]).toEqual([intent, interrupt_class]);
      }
    }
  },

  async SC4(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    for (const message of ['', ' ', '   ', '\n\t  ']) {
      await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () => w.send(s2, { message, to: [s1.id] }));
      await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () =>
        w.append([{ type: 'signal.sent', stream: 'thread/t-sc4', data: w.rawSignal({ signal_id: 'sig-0000sc4a', thread_id: 't-sc4', message }) }]),
      );
    }
    const optional: Partial<SendSignalInput>[] = [
      { lane: '' },
      { lane: '   ' },
      { role: '' },
      { role: '  ' },
      { thread: '' },
      { thread: '  ' },
      { idempotency_key: '' },
      { idempotency_key: '   ' },
      { workspace_id: '' },
      { workspace_id: '  ' },
      { wu: ' ' },
      { initiative: ' ' },
      { reply_to: ' ' },
      { to: ['  '] },
      { to: [''] },
    ];
    for (const fields of optional) {
      await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () => w.send(s2, { message: 'x', ...fields }), `a send with ${JSON.stringify(fields)}`);
    }
    // The message is stored trimmed; a trimmed message of 16,384 characters is accepted, one more is not.
    const trimmed = await w.send(s2, { message: `  ${'y'.repeat(16_384)}  `, to: [s1.id] });
    expect(trimmed.signal.message).toBe('y'.repeat(16_384));
    await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () => w.send(s2, { message: 'y'.repeat(16_385), to: [s1.id] }));
  },

  async SC5(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    const sent = await w.send(s2, { message: 'read me', to: [s1.id] });
    const receipt = {
      signal_id: sent.signal.signal_id,
      reader_identity: s1.identity,
      read_at: NOW,
      thread_id: sent.signal.thread_id,
      session_id: s1.id,
      via: 'inbox',
      cause_signal_id: null,
    };
    for (const state of ['read', 'seen', 'DELIVERED', 'acknowledged', '']) {
      expect(A2AReceiptV1.safeParse({ signal_id: sent.signal.signal_id, reader_identity: s1.identity, read_at: NOW, delivery_state: state }).success, state).toBe(false);
      await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () =>
        w.append([{ type: 'receipt.recorded', stream: `thread/${sent.signal.thread_id}`, data: { ...receipt, delivery_state: state } }]),
      );
    }
    expect(await w.stateOf(sent.signal.signal_id, s1.identity)).toBeNull();
    // The three values are accepted and fold (delivered, then the latest vote).
    for (const state of ['delivered', 'acked', 'rejected'] as const) {
      expect(A2AReceiptV1.parse({ signal_id: sent.signal.signal_id, reader_identity: s1.identity, read_at: NOW, delivery_state: state }).delivery_state).toBe(state);
      await w.append([{ type: 'receipt.recorded', stream: `thread/${sent.signal.thread_id}`, data: { ...receipt, delivery_state: state } }]);
      expect(await w.stateOf(sent.signal.signal_id, s1.identity)).toBe(state);
    }
  },

  async SC6(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    const directed = w.rawSignal({ signal_id: 'sig-0000sc6a', thread_id: 't-sc6', recipients: [s1.identity, s2.identity], interrupt_class: 'priority' });
    for (const target_agent of [s2.identity, 'someone-else', SYSTEM_IDENTITY]) {
      await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () => w.append([{ type: 'signal.sent', stream: 'thread/t-sc6', data: { ...directed, target_agent } }]));
      expect(A2ASignalV1.safeParse(toA2ASignalV1({ ...SignalSentData.parse({ ...directed, target_agent: s1.identity }), target_agent })).success).toBe(false);
    }
    // A directed record without the alias, and a broadcast with one, are refused too.
    await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () => w.append([{ type: 'signal.sent', stream: 'thread/t-sc6', data: directed }]));
    await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () =>
      w.append([{ type: 'signal.sent', stream: 'thread/t-sc6', data: w.rawSignal({ signal_id: 'sig-0000sc6b', thread_id: 't-sc6', target_agent: s1.identity }) }]),
    );
    // Legacy: target_agent only, or with empty recipients, reads as recipients [target_agent].
    await w.append([
      { type: 'signal.sent', stream: 'thread/sig-0000sc6c', data: { signal_id: 'sig-0000sc6c', sender_identity: SYSTEM_IDENTITY, target_agent: s1.identity, message: 'old', created_at: NOW, ...w.workspaceFields } },
      { type: 'signal.sent', stream: 'thread/sig-0000sc6d', data: { signal_id: 'sig-0000sc6d', sender_identity: s2.identity, recipients: [], target_agent: s1.identity, message: 'old too', created_at: NOW, ...w.workspaceFields } },
    ]);
    const listed = await w.visible(s1.identity);
    expect(listed.map((s) => [s.signal_id, s.recipients, s.target_agent, s.interrupt_class])).toEqual([
      ['sig-0000sc6c', [s1.identity], s1.identity, 'priority'],
      ['sig-0000sc6d', [s1.identity], s1.identity, 'priority'],
    ]);
    // Directed, so nobody else sees them.
    expect(idsOf(await w.visible(s2.identity))).toEqual([]);
  },

  // ---- Visibility ----
  async V1(w) {
    const s0 = await w.start();
    const s1 = await w.start({ agent_identity: 'reviewer:docs:a' });
    const s2 = await w.start();
    const b = await w.send(s0, { message: 'lane freeze', lane: 'L1' });
    expect(b.signal.recipients).toEqual([]);
    expect(idsOf(await w.visible(s1.identity))).toEqual([b.signal.signal_id]);
    expect(idsOf(await w.visible(s2.identity))).toEqual([b.signal.signal_id]);
    // A known identity that has no live session sees broadcasts too.
    await w.end(s1);
    expect(idsOf(await w.visible('reviewer:docs:a'))).toEqual([b.signal.signal_id]);
    expect(idsOf(await w.visible(s0.identity))).toEqual([]);
  },

  async V2(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const s3 = await w.start({ agent_identity: 'reviewer:docs:a' });
    const d = await w.send(s0, { message: 'for S1 and the reviewer', to: [s1.id, 'reviewer:docs:a'] });
    expect(idsOf(await w.visible(s1.identity))).toEqual([d.signal.signal_id]);
    expect(idsOf(await w.visible(s3.identity))).toEqual([d.signal.signal_id]);
    expect(idsOf(await w.visible(s2.identity))).toEqual([]);
    expect(idsOf(await w.visible(s0.identity))).toEqual([]);
    // Delivery paths agree: drain and watch hand it only to recipients.
    expect(idsOf((await w.drain(s2.id)).events.map((e) => e.signal))).toEqual([]);
    expect(idsOf((await w.watchOnce(s2.id)).map((e) => e.signal))).toEqual([]);
    expect(idsOf((await w.watchOnce(s1.id)).map((e) => e.signal))).toEqual([d.signal.signal_id]);
  },

  async V3(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    await w.send(s0, { message: 'broadcast by S0' });
    const direct = await w.send(s0, { message: 'to S1', to: [s1.id], requires_ack: true });
    const answer = await w.send(s1, { message: 'answer to S0', reply_to: direct.signal.signal_id });
    expect(answer.signal.recipients).toEqual([s0.identity]);
    // The sender's own signals are never listed, read or not, and never marked; what others sent it is.
    expect(idsOf(await w.visible(s0.identity))).toEqual([answer.signal.signal_id]);
    expect(idsOf(await w.unread(s0.identity))).toEqual([answer.signal.signal_id]);
    const own = await w.inbox(s0, { all: true });
    expect(idsOf(own.signals)).toEqual([answer.signal.signal_id]);
    expect(own.marked).toBe(1);
    expect((await w.receipts()).map((r) => [r.data.signal_id, r.data.reader_identity])).toEqual([[answer.signal.signal_id, s0.identity]]);
    expect((await w.drain(s0.id)).events).toEqual([]);
    expect(await w.watchOnce(s0.id)).toEqual([]);
    // Observer mode lists them all, the sender's included.
    expect((await w.inbox(undefined, {})).signals.length).toBe(3);
  },

  async V4(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const b1 = await w.send(s0, { message: 'b1' });
    await w.send(s0, { message: 'to S2', to: [s2.id] });
    const d1 = await w.send(s2, { message: 'to S1', to: [s1.id] });
    const b2 = await w.send(s2, { message: 'b2' });
    await w.send(s1, { message: 'own broadcast' });
    const d3 = await w.send(s0, { message: 'to S1 and S2', to: [s2.id, s1.id] });
    const expected = [b1, d1, b2, d3].map((s) => s.signal.signal_id);
    const inbox = await w.inbox(s1, { mark: false });
    expect(idsOf(inbox.signals)).toEqual(expected);
    expect(inbox.signals.map((s) => s.seq)).toEqual([b1.seq, d1.seq, b2.seq, d3.seq]);
    expect([...inbox.signals.map((s) => s.seq)].sort((a, b) => a - b)).toEqual(inbox.signals.map((s) => s.seq));
    // The watcher's catch-up set is the same list, in the same order.
    expect(idsOf((await w.watchOnce(s1.id)).map((d) => d.signal))).toEqual(expected);
  },

  async V5(w) {
    await w.withWus('WU-1', 'WU-2');
    const s0 = await w.start();
    const s1 = await w.start();
    const a = await w.send(s0, { message: 'a', to: [s1.id], wu: 'WU-1', thread: 't1' });
    const b = await w.send(s0, { message: 'b', to: [s1.id], wu: 'WU-2', intent: 'PROPOSE', thread: 't2' });
    const c = await w.send(s0, { message: 'c', to: [s1.id], intent: 'PROPOSE', thread: 't1' });
    const d = await w.send(s0, { message: 'd', wu: 'WU-1' });
    const all = idsOf(await w.visible(s1.identity));
    expect(all).toEqual([a, b, c, d].map((s) => s.signal.signal_id));
    const cases: [Omit<InboxInput, 'for' | 'mark' | 'all'>, SendResult[]][] = [
      [{ wu: 'WU-1' }, [a, d]],
      [{ wu: 'WU-2' }, [b]],
      [{ thread: 't1' }, [a, c]],
      [{ thread: 'nope' }, []],
      [{ intent: ['PROPOSE'] }, [b, c]],
      [{ intent: ['PROPOSE', 'AGREE'] }, [b, c]],
      [{ intent: ['INFO'] }, [a, d]],
      [{ wu: 'WU-1', intent: ['INFO'] }, [a, d]],
      [{ thread: 't1', intent: ['PROPOSE'] }, [c]],
      [{ wu: 'WU-2', thread: 't1' }, []],
    ];
    for (const [filters, expected] of cases) {
      const listed = idsOf(await w.visible(s1.identity, filters));
      expect(listed, JSON.stringify(filters)).toEqual(expected.map((s) => s.signal.signal_id));
      // Only narrowing: a subsequence of the unfiltered list.
      expect(all.filter((id) => listed.includes(id))).toEqual(listed);
    }
    // Marking with a filter marks only what the filter lists.
    const marked = await w.inbox(s1, { wu: 'WU-1' });
    expect(marked.marked).toBe(2);
    expect(idsOf(await w.unread(s1.identity))).toEqual([b, c].map((s) => s.signal.signal_id));
  },

  async V6(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const b = await w.send(s0, { message: 'broadcast' });
    const d = await w.send(s0, { message: 'direct', to: [s1.id] });
    const before = await w.store.head();
    const noMark = await w.inbox(s1, { mark: false });
    expect([idsOf(noMark.signals), noMark.marked]).toEqual([[b.signal.signal_id, d.signal.signal_id], 0]);
    // Observer mode: no session, no identity, no --for — every signal, never marked.
    const observer = await w.inbox(undefined, {});
    expect(observer.reader_identity).toBeNull();
    expect([idsOf(observer.signals), observer.marked]).toEqual([[b.signal.signal_id, d.signal.signal_id], 0]);
    // A session reading for another identity never marks that identity's signals.
    const forOther = await w.inbox(s2, { for: s1.id });
    expect([idsOf(forOther.signals), forOther.marked]).toEqual([[b.signal.signal_id, d.signal.signal_id], 0]);
    expect(await w.store.head()).toEqual(before);
    expect(idsOf(await w.unread(s1.identity))).toEqual([b.signal.signal_id, d.signal.signal_id]);
  },

  async V7(w) {
    await w.withWus('WU-1');
    const s0 = await w.start();
    const s1 = await w.start();
    await w.append([{ type: 'wu.claimed', stream: 'wu/WU-1', data: { wu_id: 'WU-1', session_id: s1.id, mode: 'worktree', worktree_path: null, branch: null, takeover_from: null } }]);
    const own = await w.send(s0, { message: 'ours', to: [s1.id], wu: 'WU-1' });
    const foreign = { workspace_id: 'ws-other', sender_identity: s0.identity, created_at: NOW };
    await w.append([
      { type: 'signal.sent', stream: 'thread/t-foreign-1', data: w.rawSignal({ ...foreign, signal_id: 'sig-0000f0a1', thread_id: 't-foreign-1', recipients: [s1.identity], target_agent: s1.identity, interrupt_class: 'interrupt', wu_id: 'WU-1' }) },
      { type: 'signal.sent', stream: 'thread/t-foreign-2', data: w.rawSignal({ ...foreign, signal_id: 'sig-0000f0a2', thread_id: 't-foreign-2' }) },
    ]);
    const foreignIds = ['sig-0000f0a1', 'sig-0000f0a2'];
    if (w.hosted) {
      // Hosted: another tenant's signals are invisible to every read path.
      expect(idsOf(await w.visible(s1.identity))).toEqual([own.signal.signal_id]);
      expect(idsOf((await w.inbox(undefined, {})).signals)).toEqual([own.signal.signal_id]);
      await w.refusedWithNothingAppended(ErrorCode.UNKNOWN_ID, () => w.converged('t-foreign-1'));
      const gate = await refusal(signalGate(w.env(s1), 'WU-1', { allow: false, reason: undefined }));
      expect(gate.code).toBe(CoordinationErrorCode.UNREAD_DIRECTED_SIGNALS);
      expect(gate.details?.['signals']).toEqual([{ signal_id: own.signal.signal_id, sender_identity: s0.identity, intent: 'INFO', requires_ack: false }]);
      expect(idsOf((await w.drain(s1.id)).events.map((e) => e.signal))).toEqual([own.signal.signal_id]);
      expect(idsOf((await w.watchOnce(s1.id)).map((e) => e.signal))).toEqual([]);
      expect((await w.receipts()).map((r) => r.data.signal_id)).toEqual([own.signal.signal_id]);
    } else {
      // Local: every signal is read, whatever workspace id it carries.
      expect(idsOf(await w.visible(s1.identity))).toEqual([own.signal.signal_id, ...foreignIds]);
      expect(idsOf((await w.inbox(undefined, {})).signals)).toEqual([own.signal.signal_id, ...foreignIds]);
      expect((await w.converged('t-foreign-1')).root_signal_id).toBe('sig-0000f0a1');
      const gate = await refusal(signalGate(w.env(s1), 'WU-1', { allow: false, reason: undefined }));
      expect(idsOf(z.array(z.object({ signal_id: z.string() })).parse(gate.details?.['signals']))).toEqual([own.signal.signal_id, 'sig-0000f0a1']);
      expect(idsOf((await w.drain(s1.id)).events.map((e) => e.signal))).toEqual(['sig-0000f0a1', own.signal.signal_id]);
      expect(idsOf((await w.watchOnce(s1.id)).map((e) => e.signal))).toEqual(['sig-0000f0a2']);
    }
  },

  // ---- Routing ----
  async R1(w) {
    const plain = await w.start();
    const named = await w.start({ agent_identity: 'codex:implementer:host42' });
    const sender = await w.start();
    const a = await w.send(sender, { message: 'by id', to: [plain.id] });
    expect(a.signal.recipients).toEqual([plain.id]);
    const b = await w.send(sender, { message: 'by id, with identity', to: [named.id] });
    expect(b.signal.recipients).toEqual(['codex:implementer:host42']);
    // An ended session's id no longer resolves.
    await w.end(plain);
    await w.refusedWithNothingAppended(CoordinationErrorCode.UNKNOWN_RECIPIENT, () => w.send(sender, { message: 'gone', to: [plain.id] }));
  },

  async R2(w) {
    const reviewer = await w.start({ agent_identity: 'reviewer:docs:a' });
    const second = await w.start({ agent_identity: 'reviewer:docs:a' });
    const sender = await w.start();
    // Live (even shared by two sessions: one identity, not ambiguous).
    expect((await w.send(sender, { message: 'live', to: ['reviewer:docs:a'] })).signal.recipients).toEqual(['reviewer:docs:a']);
    await w.end(reviewer);
    await w.end(second);
    // Known offline: still addressable by the identity; the display name and session id are not.
    const offline = await w.send(sender, { message: 'offline', to: ['reviewer:docs:a'] });
    expect(offline.signal.recipients).toEqual(['reviewer:docs:a']);
    await w.refusedWithNothingAppended(CoordinationErrorCode.UNKNOWN_RECIPIENT, () => w.send(sender, { message: 'x', to: [reviewer.name] }));
    await w.refusedWithNothingAppended(CoordinationErrorCode.UNKNOWN_RECIPIENT, () => w.send(sender, { message: 'x', to: [reviewer.id] }));
    // An identity no session ever had is unknown.
    await w.refusedWithNothingAppended(CoordinationErrorCode.UNKNOWN_RECIPIENT, () => w.send(sender, { message: 'x', to: ['reviewer:docs:b'] }));
    // A restarted reviewer with the identity finds the offline signal unread.
    const restarted = await w.start({ agent_identity: 'reviewer:docs:a' });
    expect(idsOf((await w.inbox(restarted, { mark: false })).signals)).toContain(offline.signal.signal_id);
  },

  async R3(w) {
    const plain = await w.start();
    const named = await w.start({ agent_identity: 'reviewer:docs:a' });
    const sender = await w.start();
    expect([plain.name, named.name, sender.name]).toEqual(['Planck', 'Noether', 'Curie']);
    const a = await w.send(sender, { message: 'to a name', to: ['Planck'] });
    expect(a.signal.recipients).toEqual([plain.id]);
    const b = await w.send(sender, { message: 'to a name with identity', to: ['Noether'] });
    expect(b.signal.recipients).toEqual(['reviewer:docs:a']);
    expect(a.recipient_names).toEqual([{ identity: plain.id, display_name: 'Planck' }]);
    // Display names are case-sensitive.
    await w.refusedWithNothingAppended(CoordinationErrorCode.UNKNOWN_RECIPIENT, () => w.send(sender, { message: 'x', to: ['planck'] }));
    // Reading for a display name records the canonical identity too.
    await w.inbox(undefined, { for: 'Planck' });
    const persisted = (await w.events()).filter((e) => e.type === 'signal.sent' || e.type === 'receipt.recorded');
    expect(persisted.length).toBe(3);
    for (const event of persisted) {
      const text = JSON.stringify(event.data);
      for (const name of ['Planck', 'Noether', 'Curie']) expect(text, `${event.type} ${text}`).not.toContain(name);
    }
    expect((await w.receipts()).map((r) => r.data.reader_identity)).toEqual([plain.id]);
  },

  async R4(w) {
    const plain = await w.start();
    const sender = await w.start();
    expect(plain.identity).toBe(plain.id);
    const d = await w.send(sender, { message: 'hello', to: [plain.name] });
    expect(d.signal.recipients).toEqual([plain.id]);
    expect(d.signal.target_agent).toBe(plain.id);
    expect(d.signal.sender_identity).toBe(sender.id);
    const inbox = await w.inbox(plain, {});
    expect(inbox.reader_identity).toBe(plain.id);
    expect(idsOf(inbox.signals)).toEqual([d.signal.signal_id]);
    expect((await w.receipts()).map((r) => [r.data.reader_identity, r.data.session_id])).toEqual([[plain.id, plain.id]]);
  },

  async R5(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    for (const to of [['Nobody'], ['Planck', 'Nobody'], ['session_000000000000000000000000'], ['nobody:at:all'], ['Planck-2']]) {
      const error = await w.refusedWithNothingAppended(CoordinationErrorCode.UNKNOWN_RECIPIENT, () => w.send(s2, { message: 'x', to }));
      expect(error.exitCode).toBe(2);
    }
    // The reader side fails closed the same way.
    await w.refusedWithNothingAppended(CoordinationErrorCode.UNKNOWN_RECIPIENT, () => w.inbox(s1, { for: 'Nobody' }));
    expect(await w.signals()).toEqual([]);
  },

  /**
   * R6 cannot be produced through the log: session ids are unique, an agent identity is one
   * identity however many sessions share it, and the fold keeps display names distinct among all
   * non-ended sessions at every seq (§3) — so no stage of §6.2 can match two identities. The case
   * checks (1) the fold's guarantee with two starts that recorded the same name (a race), (2) the
   * resolution function on a roster where a token is ambiguous (built directly, as an adapter
   * bug or a future resolution stage could make it), which fails AMBIGUOUS_RECIPIENT naming both
   * identities, and (3) that a resolution failure inside `sendSignal` persists nothing (the same
   * code path throws both failures before anything is appended).
   */
  async R6(w) {
    const sender = await w.start();
    // (1) Two session.started records that asked for the same display name, as two racing starts write them.
    const ids = ['session_0000000000000000000000a1', 'session_0000000000000000000000a2'];
    await w.append(ids.map((session_id) => ({ type: 'session.started', stream: `session/${session_id}`, data: { session_id, display_name: 'Dirac', ttl_seconds: 4 * 3600 } })));
    const state = await w.state();
    expect(ids.map((id) => state.sessions.get(id)?.display_name)).toEqual(['Dirac', 'Dirac-2']);
    expect((await w.send(sender, { message: 'one', to: ['Dirac'] })).signal.recipients).toEqual([ids[0]]);
    expect((await w.send(sender, { message: 'two', to: ['Dirac-2'] })).signal.recipients).toEqual([ids[1]]);

    // (2) An ambiguous roster: two live sessions answering to one display name.
    const ambiguous = await w.state();
    const first = ambiguous.sessions.get(ids[0]!)!;
    const twin: SessionRecord = { ...ambiguous.sessions.get(ids[1]!)!, display_name: 'Dirac' };
    ambiguous.sessions.set(twin.session_id, twin);
    expect(first.display_name).toBe('Dirac');
    const resolution = resolveToken(ambiguous, NOW, 'Dirac');
    expect(resolution).toEqual({ ok: false, failure: 'ambiguous', candidates: ids });
    let thrown: unknown;
    try {
      resolveRecipients(ambiguous, NOW, ['Dirac']);
    } catch (error) {
      thrown = error;
    }
    expect(isBatonError(thrown) && thrown.code).toBe(CoordinationErrorCode.AMBIGUOUS_RECIPIENT);
    expect(isBatonError(thrown) && thrown.exitCode).toBe(2);
    expect(isBatonError(thrown) && thrown.details).toEqual({ field: '--to', token: 'Dirac', candidates: ids });

    // (3) A token that fails resolution in a send persists nothing, even after valid ones.
    await w.refusedWithNothingAppended(CoordinationErrorCode.UNKNOWN_RECIPIENT, () => w.send(sender, { message: 'x', to: ['Dirac', 'Dirac-3'] }));
  },

  async R7(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start({ agent_identity: 'reviewer:docs:a' });
    const s3 = await w.start();
    const sent = await w.send(s0, { message: 'both of you', to: [s1.name, s1.id, s2.name, 'reviewer:docs:a', s2.id, s1.name] });
    expect(sent.signal.recipients).toEqual([s1.id, 'reviewer:docs:a']);
    expect(sent.signal.target_agent).toBe(s1.id);
    expect(idsOf(await w.visible(s1.identity))).toEqual([sent.signal.signal_id]);
    expect(idsOf(await w.visible(s2.identity))).toEqual([sent.signal.signal_id]);
    expect(idsOf(await w.visible(s3.identity))).toEqual([]);
    // Each recipient reads it independently; one signal stored.
    expect((await w.inbox(s1, {})).marked).toBe(1);
    expect((await w.inbox(s2, {})).marked).toBe(1);
    expect((await w.signals()).length).toBe(1);
  },

  async R8(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start({ agent_identity: 'reviewer:docs:a' });
    const one = await w.send(s0, { message: 'one', to: [s1.id] });
    const two = await w.send(s0, { message: 'two', to: ['reviewer:docs:a', s1.id] });
    const broadcast = await w.send(s0, { message: 'all' });
    const reply = await w.send(s2, { message: 'reply', reply_to: two.signal.signal_id });
    expect([one, two, reply].map((s) => [s.signal.recipients[0], s.signal.target_agent])).toEqual([
      [s1.id, s1.id],
      ['reviewer:docs:a', 'reviewer:docs:a'],
      [s0.id, s0.id],
    ]);
    expect('target_agent' in broadcast.signal).toBe(false);
    // The stored records say the same.
    const stored = await w.signals();
    expect(stored.map((s) => ('target_agent' in s.data ? s.data.target_agent : 'absent'))).toEqual([s1.id, 'reviewer:docs:a', 'absent', s0.id]);
    for (const s of stored) expect(s.data.target_agent).toBe(s.data.recipients[0]);
  },

  async R9(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    if (w.hosted) {
      // Without a workspace id the hosted profile refuses to send at all (config or flag).
      const noWorkspace: CoordinationSettings = { ...w.settings, workspaceId: undefined };
      await w.refusedWithNothingAppended(CoordinationErrorCode.WORKSPACE_ID_REQUIRED, () => w.send(s2, { message: 'x', to: [s1.id] }, { settings: noWorkspace }));
      let configError: unknown;
      try {
        coordinationSettingsFrom('a2a: {profile: hosted}\n');
      } catch (error) {
        configError = error;
      }
      expect(isBatonError(configError) && configError.code).toBe(CoordinationErrorCode.WORKSPACE_ID_REQUIRED);
      // Another workspace id than the configured one is refused; none given → the configured one.
      await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () => w.send(s2, { message: 'x', to: [s1.id], workspace_id: 'ws-other' }));
      const filled = await w.send(s2, { message: 'hosted', to: [s1.id] });
      expect(filled.signal.workspace_id).toBe(WS);
      const explicit = await w.send(s2, { message: 'hosted, explicit', to: [s1.id], workspace_id: WS });
      expect(explicit.signal.workspace_id).toBe(WS);
      // A record another writer stored without one is no signal of this workspace.
      const { workspace_id: _ws, ...bare } = w.rawSignal({ signal_id: 'sig-0000r9aa', thread_id: 't-r9', recipients: [s1.identity], target_agent: s1.identity, interrupt_class: 'priority' });
      await w.append([{ type: 'signal.sent', stream: 'thread/t-r9', data: bare }]);
      expect(idsOf(await w.visible(s1.identity))).toEqual([filled.signal.signal_id, explicit.signal.signal_id]);
    } else {
      const accepted = await w.send(s2, { message: 'local', to: [s1.id] });
      expect('workspace_id' in accepted.signal).toBe(false);
      expect('workspace_id' in (await w.signals())[0]!.data).toBe(false);
      // Recorded when given, whatever it is.
      expect((await w.send(s2, { message: 'local, tagged', to: [s1.id], workspace_id: 'ws-anything' })).signal.workspace_id).toBe('ws-anything');
      expect((await w.visible(s1.identity)).length).toBe(2);
    }
  },

  async R10(w) {
    await w.withWus('WU-1');
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const parent = await w.send(s2, { message: 'proposal', to: [s1.name], wu: 'WU-1', lane: 'L1', role: 'reviewer', intent: 'PROPOSE', requires_ack: true });
    expect(parent.signal.initiative).toBe('INIT-1');
    const reply = await w.send(s1, { message: 'ok', reply_to: parent.signal.signal_id, intent: 'AGREE' });
    expect(reply.signal).toMatchObject({
      thread_id: parent.signal.thread_id,
      reply_to: parent.signal.signal_id,
      recipients: [s2.id],
      target_agent: s2.id,
      wu_id: 'WU-1',
      initiative: 'INIT-1',
      lane: 'L1',
      role: 'reviewer',
      interrupt_class: 'priority',
      requires_ack: false,
    });
    expect((await w.signals()).find((s) => s.data.signal_id === reply.signal.signal_id)!.stream).toBe(`thread/${parent.signal.thread_id}`);
    // Given axes and recipients win over the parent's.
    const steered = await w.send(s1, { message: 'ok, S0 too', reply_to: parent.signal.signal_id, to: [s0.id], lane: 'L2' });
    expect(steered.signal).toMatchObject({ recipients: [s0.id], lane: 'L2', wu_id: 'WU-1' });
    // The parent sender is the replier itself (or system): the parent's recipients minus the replier.
    const fromSystem = await w.send(undefined, { message: 'system asks', to: [s1.id, s2.id] });
    expect(fromSystem.signal.sender_identity).toBe(SYSTEM_IDENTITY);
    expect((await w.send(s1, { message: 'answer', reply_to: fromSystem.signal.signal_id })).signal.recipients).toEqual([s2.id]);
    const own = await w.send(s0, { message: 'note', to: [s1.id] });
    expect((await w.send(s0, { message: 'follow-up', reply_to: own.signal.signal_id })).signal.recipients).toEqual([s1.id]);
  },

  async R11(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    const parent = await w.send(s2, { message: 'proposal', to: [s1.id], intent: 'PROPOSE' });
    const side = await w.send(s1, { message: 'side', reply_to: parent.signal.signal_id, thread: 'side-1' });
    expect(side.signal).toMatchObject({ thread_id: 'side-1', reply_to: parent.signal.signal_id, recipients: [s2.id] });
    expect((await w.signals()).find((s) => s.data.signal_id === side.signal.signal_id)!.stream).toBe('thread/side-1');
    expect(idsOf(await w.visible(s2.identity, { thread: 'side-1' }))).toEqual([side.signal.signal_id]);
    // An unknown parent is UNKNOWN_ID, nothing appended.
    await w.refusedWithNothingAppended(ErrorCode.UNKNOWN_ID, () => w.send(s1, { message: 'x', reply_to: 'sig-00000000' }));
  },

  async R12(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    const classes = async (input: SendSignalInput, as: Who = s2): Promise<string> => (await w.send(as, input)).signal.interrupt_class;
    const root = await w.send(s2, { message: 'directed root', to: [s1.id] });
    expect(root.signal.interrupt_class).toBe('priority');
    expect(await classes({ message: 'broadcast' })).toBe('advisory');
    expect(await classes({ message: 'directed, ack', to: [s1.id], requires_ack: true })).toBe('priority');
    expect(await classes({ message: 'directed reply', reply_to: root.signal.signal_id }, s1)).toBe('priority');
    const b = await w.send(s1, { message: 'broadcast root' });
    expect(await classes({ message: 'reply to my own broadcast', reply_to: b.signal.signal_id }, s1)).toBe('advisory');
    // The explicit class always wins.
    expect(await classes({ message: 'x', to: [s1.id], interrupt_class: 'advisory' })).toBe('advisory');
    expect(await classes({ message: 'x', interrupt_class: 'interrupt' })).toBe('interrupt');
  },

  // ---- Receipt ----
  async C1(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const b = await w.send(s0, { message: 'broadcast' });
    const first = await w.inbox(s1, {});
    expect([idsOf(first.signals), first.marked]).toEqual([[b.signal.signal_id], 1]);
    expect(first.signals[0]).toMatchObject({ read: false, delivery_state: null });
    const receipts = await w.receipts();
    expect(receipts).toHaveLength(1);
    expect(receipts[0]!.data).toStrictEqual({
      signal_id: b.signal.signal_id,
      reader_identity: s1.identity,
      read_at: NOW,
      delivery_state: 'delivered',
      thread_id: b.signal.thread_id,
      session_id: s1.id,
      via: 'inbox',
      cause_signal_id: null,
    });
    expect(A2AReceiptV1.safeParse({ signal_id: b.signal.signal_id, reader_identity: s1.identity, read_at: NOW, delivery_state: 'delivered' }).success).toBe(true);
    expect(await w.stateOf(b.signal.signal_id, s1.identity)).toBe('delivered');
    expect(await w.stateOf(b.signal.signal_id, s2.identity)).toBeNull();
    expect(idsOf(await w.unread(s2.identity))).toEqual([b.signal.signal_id]);
  },

  async C2(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const d = await w.send(s0, { message: 'direct', to: [s1.id] });
    expect((await w.inbox(s1, {})).marked).toBe(1);
    const head = await w.store.head();
    const again = await w.inbox(s1, {});
    expect([again.signals, again.marked]).toEqual([[], 0]);
    const all = await w.inbox(s1, { all: true });
    expect(all.signals.map((s) => [s.signal_id, s.read, s.delivery_state])).toEqual([[d.signal.signal_id, true, 'delivered']]);
    expect(all.marked).toBe(0);
    // Nor do drain and watch read it again.
    expect((await w.drain(s1.id)).events).toEqual([]);
    expect(await w.watchOnce(s1.id)).toEqual([]);
    expect(await w.store.head()).toEqual(head);
  },

  async C3(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const p = await w.send(s0, { message: 'Approve?', to: [s1.id, s2.id], intent: 'PROPOSE', requires_ack: true });
    await w.inbox(s1, {});
    const agree = await w.send(s1, { message: 'yes', reply_to: p.signal.signal_id, intent: 'AGREE' });
    const reject = await w.send(s2, { message: 'no', reply_to: p.signal.signal_id, intent: 'REJECT' });
    expect([agree.promoted_receipts, reject.promoted_receipts]).toEqual([1, 1]);
    const receipts = await w.receipts();
    const acked = receipts.find((r) => r.data.delivery_state === 'acked')!;
    const rejected = receipts.find((r) => r.data.delivery_state === 'rejected')!;
    // Each promotion is in the vote's batch, right after it.
    expect(acked.seq).toBe(agree.seq + 1);
    expect(rejected.seq).toBe(reject.seq + 1);
    expect(acked.data).toMatchObject({ signal_id: p.signal.signal_id, reader_identity: s1.identity, via: 'reply', cause_signal_id: agree.signal.signal_id, session_id: s1.id });
    expect(rejected.data).toMatchObject({ signal_id: p.signal.signal_id, reader_identity: s2.identity, via: 'reply', cause_signal_id: reject.signal.signal_id });
    expect(await w.stateOf(p.signal.signal_id, s1.identity)).toBe('acked');
    expect(await w.stateOf(p.signal.signal_id, s2.identity)).toBe('rejected');
    // Same thread by --thread alone (no reply-to) counts too.
    const q = await w.send(s0, { message: 'And this?', to: [s1.id], intent: 'PROPOSE', thread: 'plan-q' });
    await w.send(s1, { message: 'yes', thread: 'plan-q', intent: 'AGREE' });
    expect(await w.stateOf(q.signal.signal_id, s1.identity)).toBe('acked');
    // INFO, PROPOSE and COUNTER never promote.
    const r = await w.send(s0, { message: 'Third?', to: [s2.id], intent: 'PROPOSE', thread: 'plan-r' });
    for (const intent of ['INFO', 'PROPOSE', 'COUNTER'] as const) {
      expect((await w.send(s2, { message: intent, thread: 'plan-r', intent, to: [s0.id] })).promoted_receipts).toBe(0);
    }
    expect(await w.stateOf(r.signal.signal_id, s2.identity)).toBeNull();
  },

  async C4(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const d = await w.send(s0, { message: 'never read', to: [s1.id], intent: 'PROPOSE' });
    expect(await w.receipts()).toEqual([]);
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBeNull();
    const vote = await w.send(s1, { message: 'yes', reply_to: d.signal.signal_id, intent: 'AGREE' });
    expect(vote.promoted_receipts).toBe(1);
    expect((await w.receipts()).map((r) => [r.data.signal_id, r.data.reader_identity, r.data.delivery_state, r.data.via])).toEqual([[d.signal.signal_id, s1.identity, 'acked', 'reply']]);
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('acked');
    // Nothing to deliver any more: it is read.
    expect(idsOf(await w.unread(s1.identity))).toEqual([]);
  },

  async C5(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const d = await w.send(s0, { message: 'for S1', to: [s1.id], intent: 'PROPOSE', requires_ack: true });
    await w.inbox(s1, {});
    const receiptsBefore = await w.receipts();
    for (const intent of ['AGREE', 'REJECT'] as const) {
      const vote = await w.send(s2, { message: `not asked: ${intent}`, thread: d.signal.thread_id, intent });
      expect(vote.promoted_receipts).toBe(0);
      const replyVote = await w.send(s2, { message: `not asked either: ${intent}`, reply_to: d.signal.signal_id, intent });
      expect(replyVote.promoted_receipts).toBe(0);
    }
    expect(await w.receipts()).toEqual(receiptsBefore);
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('delivered');
    expect(await w.stateOf(d.signal.signal_id, s2.identity)).toBeNull();
  },

  async C6(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const d = await w.send(s0, { message: 'for S1', to: [s1.id], intent: 'PROPOSE' });
    await w.inbox(s1, {});
    const agree = await w.send(s1, { message: 'agree, elsewhere', thread: 'other-2', intent: 'AGREE' });
    expect(agree.promoted_receipts).toBe(0);
    const reject = await w.send(s1, { message: 'reject, elsewhere', thread: 'other-3', intent: 'REJECT', to: [s0.id] });
    expect(reject.promoted_receipts).toBe(0);
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('delivered');
    expect((await w.receipts()).map((r) => r.data.delivery_state)).toEqual(['delivered']);
  },

  async C7(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const d = await w.send(s0, { message: 'for both', to: [s1.id, s2.id], intent: 'PROPOSE' });
    await w.inbox(s1, {});
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('delivered');
    expect(await w.stateOf(d.signal.signal_id, s2.identity)).toBeNull();
    expect(idsOf(await w.unread(s2.identity))).toEqual([d.signal.signal_id]);
    await w.send(s1, { message: 'yes', reply_to: d.signal.signal_id, intent: 'AGREE' });
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('acked');
    expect(await w.stateOf(d.signal.signal_id, s2.identity)).toBeNull();
    await w.send(s2, { message: 'no', reply_to: d.signal.signal_id, intent: 'REJECT' });
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('acked');
    expect(await w.stateOf(d.signal.signal_id, s2.identity)).toBe('rejected');
  },

  async C8(w) {
    const first = await w.start({ agent_identity: 'reviewer:docs:a' });
    const sender = await w.start();
    const second = await w.start({ agent_identity: 'reviewer:docs:a' });
    const d = await w.send(sender, { message: 'check', to: ['reviewer:docs:a'], intent: 'PROPOSE' });
    const e = await w.send(sender, { message: 'and this', to: [first.id] });
    expect(e.signal.recipients).toEqual(['reviewer:docs:a']);
    expect(idsOf((await w.inbox(first, {})).signals)).toEqual([d.signal.signal_id, e.signal.signal_id]);
    // The second terminal sees them as read, and no delivery path hands them over again.
    expect((await w.inbox(second, {})).signals).toEqual([]);
    expect((await w.inbox(second, { all: true })).signals.map((s) => [s.signal_id, s.read, s.delivery_state])).toEqual([
      [d.signal.signal_id, true, 'delivered'],
      [e.signal.signal_id, true, 'delivered'],
    ]);
    expect((await w.drain(second.id)).events).toEqual([]);
    expect(await w.watchOnce(second.id)).toEqual([]);
    // A vote from either session is the identity's vote.
    await w.send(second, { message: 'yes', reply_to: d.signal.signal_id, intent: 'AGREE' });
    expect((await w.inbox(first, { all: true })).signals.find((s) => s.signal_id === d.signal.signal_id)?.delivery_state).toBe('acked');
    expect(new Set((await w.receipts()).map((r) => r.data.reader_identity))).toEqual(new Set(['reviewer:docs:a']));
  },

  async C9(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const d = await w.send(s0, { message: 'Approve?', to: [s1.id], intent: 'PROPOSE', requires_ack: true });
    const thread = d.signal.thread_id;
    await w.send(s1, { message: 'yes', reply_to: d.signal.signal_id, intent: 'AGREE' });
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('acked');
    // A late delivered receipt (a slow terminal, a racing watcher) never downgrades it.
    const delivered = { signal_id: d.signal.signal_id, reader_identity: s1.identity, read_at: NOW, delivery_state: 'delivered', thread_id: thread, session_id: s1.id, via: 'watch', cause_signal_id: null };
    await w.append([{ type: 'receipt.recorded', stream: `thread/${thread}`, data: delivered }]);
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('acked');
    expect((await w.inbox(s1, { all: true })).signals[0]).toMatchObject({ signal_id: d.signal.signal_id, delivery_state: 'acked', read: true });
    // A later REJECT overrides the AGREE; a later AGREE overrides that: the latest vote wins.
    await w.send(s1, { message: 'on second thought, no', reply_to: d.signal.signal_id, intent: 'REJECT' });
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('rejected');
    await w.append([{ type: 'receipt.recorded', stream: `thread/${thread}`, data: delivered }]);
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('rejected');
    await w.send(s1, { message: 'fine, yes', reply_to: d.signal.signal_id, intent: 'AGREE' });
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('acked');
    // Re-voting the state already held appends no receipt.
    const again = await w.send(s1, { message: 'still yes', reply_to: d.signal.signal_id, intent: 'AGREE' });
    expect(again.promoted_receipts).toBe(0);
    expect((await w.receipts()).map((r) => r.data.delivery_state)).toEqual(['acked', 'delivered', 'rejected', 'delivered', 'acked']);
  },

  async C10(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const b = await w.send(s0, { message: 'broadcast' });
    const p = await w.send(s0, { message: 'proposal', to: [s1.id], intent: 'PROPOSE', thread: 'own-1' });
    // Reading, draining, watching as the sender records nothing for its own signals.
    expect((await w.inbox(s0, {})).marked).toBe(0);
    expect((await w.drain(s0.id)).events).toEqual([]);
    expect(await w.watchOnce(s0.id)).toEqual([]);
    // Voting in its own thread promotes nothing for its own signal.
    expect((await w.send(s0, { message: 'I agree with myself', thread: 'own-1', intent: 'AGREE' })).promoted_receipts).toBe(0);
    expect(await w.receipts()).toEqual([]);
    // A receipt another writer records for the sender is not folded (an integrity finding instead).
    await w.append([
      { type: 'receipt.recorded', stream: `thread/${b.signal.thread_id}`, data: { signal_id: b.signal.signal_id, reader_identity: s0.identity, read_at: NOW, delivery_state: 'delivered', thread_id: b.signal.thread_id, session_id: s0.id, via: 'inbox', cause_signal_id: null } },
    ]);
    const state = await w.state();
    expect(receiptState(state, b.signal.signal_id, s0.identity)).toBeNull();
    expect(receiptState(state, p.signal.signal_id, s0.identity)).toBeNull();
    expect(state.findings.map((f) => f.reason)).toEqual([`receipt by the sender of ${b.signal.signal_id}`]);
  },

  // ---- Convergence ----
  async K1(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const p = await w.send(s0, { message: 'Approve boundary?', to: [s1.id, s2.id], intent: 'PROPOSE', requires_ack: true });
    await w.send(s1, { message: 'yes', reply_to: p.signal.signal_id, intent: 'AGREE' });
    await w.send(s2, { message: 'yes too', reply_to: p.signal.signal_id, intent: 'AGREE' });
    expect(await w.converged(p.signal.thread_id)).toStrictEqual({
      v: 1,
      type: 'convergence',
      generated_at: NOW,
      thread_id: p.signal.thread_id,
      state: 'converged',
      root_signal_id: p.signal.signal_id,
      proposal_signal_id: p.signal.signal_id,
      proposal_author: s0.identity,
      required: [s1.identity, s2.identity],
      agreed: [s1.identity, s2.identity],
      rejected: [],
      pending: [],
      other_votes: [],
    });
  },

  async K2(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start({ agent_identity: 'reviewer:docs:a' });
    const p = await w.send(s0, { message: 'Approve boundary?', to: [s1.id, s2.id], intent: 'PROPOSE' });
    const open0 = await w.converged(p.signal.thread_id);
    expect(open0).toMatchObject({ state: 'open', required: [s1.identity, 'reviewer:docs:a'], agreed: [], pending: [s1.identity, 'reviewer:docs:a'] });
    await w.send(s2, { message: 'yes', reply_to: p.signal.signal_id, intent: 'AGREE' });
    expect(await w.converged(p.signal.thread_id)).toMatchObject({ state: 'open', agreed: ['reviewer:docs:a'], pending: [s1.identity], rejected: [] });
    // INFO from the missing identity is no vote.
    await w.send(s1, { message: 'looking', reply_to: p.signal.signal_id });
    expect(await w.converged(p.signal.thread_id)).toMatchObject({ state: 'open', pending: [s1.identity] });
  },

  async K3(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const p = await w.send(s0, { message: 'Approve boundary?', to: [s1.id, s2.id], intent: 'PROPOSE' });
    await w.send(s1, { message: 'yes', reply_to: p.signal.signal_id, intent: 'AGREE' });
    await w.send(s2, { message: 'yes', reply_to: p.signal.signal_id, intent: 'AGREE' });
    expect((await w.converged(p.signal.thread_id)).state).toBe('converged');
    const counter = await w.send(s2, { message: 'what about X', reply_to: p.signal.signal_id, intent: 'COUNTER' });
    expect(await w.converged(p.signal.thread_id)).toMatchObject({
      state: 'open',
      proposal_signal_id: counter.signal.signal_id,
      proposal_author: s2.identity,
      required: [s0.identity, s1.identity],
      agreed: [],
      pending: [s0.identity, s1.identity],
    });
    await w.send(s0, { message: 'ok', reply_to: counter.signal.signal_id, intent: 'AGREE' });
    await w.send(s1, { message: 'ok', reply_to: counter.signal.signal_id, intent: 'AGREE' });
    expect(await w.converged(p.signal.thread_id)).toMatchObject({ state: 'converged', agreed: [s0.identity, s1.identity] });
  },

  async K4(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const p = await w.send(s0, { message: 'Approve boundary?', to: [s1.id, s2.id], intent: 'PROPOSE' });
    await w.send(s1, { message: 'no', reply_to: p.signal.signal_id, intent: 'REJECT' });
    expect(await w.converged(p.signal.thread_id)).toMatchObject({ state: 'rejected', rejected: [s1.identity], pending: [s2.identity] });
    // Even when every other required identity agrees.
    await w.send(s2, { message: 'yes', reply_to: p.signal.signal_id, intent: 'AGREE' });
    expect(await w.converged(p.signal.thread_id)).toMatchObject({ state: 'rejected', rejected: [s1.identity], agreed: [s2.identity], pending: [] });
    // A later AGREE by the rejecter is its latest vote.
    await w.send(s1, { message: 'convinced', reply_to: p.signal.signal_id, intent: 'AGREE' });
    expect(await w.converged(p.signal.thread_id)).toMatchObject({ state: 'converged', agreed: [s2.identity, s1.identity], rejected: [] });
  },

  async K5(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const b = await w.send(s0, { message: 'anyone?', intent: 'PROPOSE' });
    await w.send(s1, { message: '+1', reply_to: b.signal.signal_id, intent: 'AGREE' });
    await w.send(s2, { message: '+1', reply_to: b.signal.signal_id, intent: 'AGREE' });
    const view = await w.converged(b.signal.thread_id);
    expect(view).toMatchObject({ state: 'open', required: [], agreed: [], pending: [] });
    expect(view.other_votes.map((v) => [v.identity, v.intent])).toEqual([
      [s1.identity, 'AGREE'],
      [s2.identity, 'AGREE'],
    ]);
    // Even a later directed proposal in the thread does not change its broadcast root.
    await w.send(s0, { message: 'S1 then?', thread: b.signal.thread_id, to: [s1.id], intent: 'PROPOSE' });
    await w.send(s1, { message: 'yes', thread: b.signal.thread_id, intent: 'AGREE' });
    expect((await w.converged(b.signal.thread_id)).state).toBe('open');
    await w.refusedWithNothingAppended(ErrorCode.UNKNOWN_ID, () => w.converged('nope'));
  },

  async K6(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const p = await w.send(s0, { message: 'plan', to: [s1.id], intent: 'PROPOSE' });
    await w.send(s1, { message: 'yes to the first plan', reply_to: p.signal.signal_id, intent: 'AGREE' });
    const counter = await w.send(s0, { message: 'revised plan', reply_to: p.signal.signal_id, intent: 'COUNTER' });
    // S1's AGREE came before the current proposal: it no longer counts.
    expect(await w.converged(p.signal.thread_id)).toMatchObject({ state: 'open', proposal_signal_id: counter.signal.signal_id, required: [s1.identity], pending: [s1.identity], agreed: [] });
    // A vote from an identity that is not required is listed but changes nothing.
    const outsider = await w.send(s2, { message: 'not asked', reply_to: p.signal.signal_id, intent: 'REJECT' });
    expect(await w.converged(p.signal.thread_id)).toMatchObject({
      state: 'open',
      pending: [s1.identity],
      rejected: [],
      other_votes: [{ identity: s2.identity, intent: 'REJECT', signal_id: outsider.signal.signal_id }],
    });
    await w.send(s1, { message: 'yes to the revision', reply_to: counter.signal.signal_id, intent: 'AGREE' });
    expect(await w.converged(p.signal.thread_id)).toMatchObject({ state: 'converged', agreed: [s1.identity] });
  },

  async K7(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    // Two threads with the same signals; reads happen in opposite orders, and only in the first thread before the votes.
    const p = await w.send(s0, { message: 'A?', to: [s1.id, s2.id], intent: 'PROPOSE', thread: 'k7-a' });
    const q = await w.send(s0, { message: 'B?', to: [s1.id, s2.id], intent: 'PROPOSE', thread: 'k7-b' });
    await w.inbox(s1, { thread: 'k7-a' });
    await w.inbox(s2, { thread: 'k7-a' });
    const views: ConvergenceView[] = [];
    for (const [thread, parent] of [['k7-a', p], ['k7-b', q]] as const) {
      await w.send(s1, { message: 'yes', reply_to: parent.signal.signal_id, intent: 'AGREE' });
      views.push(await w.converged(thread));
    }
    await w.drain(s2.id);
    await w.inbox(s2, { thread: 'k7-b' });
    for (const [thread, parent] of [['k7-b', q], ['k7-a', p]] as const) {
      await w.send(s2, { message: 'yes', reply_to: parent.signal.signal_id, intent: 'AGREE' });
      views.push(await w.converged(thread));
    }
    const shape = (v: ConvergenceView) => ({ state: v.state, required: v.required, agreed: v.agreed, rejected: v.rejected, pending: v.pending, other_votes: v.other_votes });
    expect(shape(views[0]!)).toEqual(shape(views[1]!));
    expect(shape(views[2]!)).toEqual(shape(views[3]!));
    expect(shape(views[2]!)).toMatchObject({ state: 'converged', agreed: [s1.identity, s2.identity] });
    // Receipts recorded afterwards — even a contrary 'rejected' one — change nothing.
    const before = await w.converged('k7-a');
    await w.append([
      { type: 'receipt.recorded', stream: 'thread/k7-a', data: { signal_id: p.signal.signal_id, reader_identity: s1.identity, read_at: NOW, delivery_state: 'rejected', thread_id: 'k7-a', session_id: null, via: 'hook', cause_signal_id: null } },
    ]);
    await w.inbox(s1, { all: true });
    expect(await w.converged('k7-a')).toStrictEqual(before);
  },

  async K8(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const p = await w.send(s0, { message: 'P?', to: [s1.id], intent: 'PROPOSE', thread: 'k8-t' });
    const q = await w.send(s0, { message: 'Q?', to: [s1.id], intent: 'PROPOSE', thread: 'k8-x' });
    // S1 replies to P, but posts the vote in thread k8-x.
    const vote = await w.send(s1, { message: 'yes', reply_to: p.signal.signal_id, thread: 'k8-x', intent: 'AGREE' });
    expect(vote.signal.thread_id).toBe('k8-x');
    expect(await w.converged('k8-x')).toMatchObject({ state: 'converged', proposal_signal_id: q.signal.signal_id, agreed: [s1.identity] });
    expect(await w.converged('k8-t')).toMatchObject({ state: 'open', proposal_signal_id: p.signal.signal_id, pending: [s1.identity], agreed: [] });
    // And it promotes in k8-x only.
    expect(await w.stateOf(q.signal.signal_id, s1.identity)).toBe('acked');
    expect(await w.stateOf(p.signal.signal_id, s1.identity)).toBeNull();
  },

  // ---- Idempotency ----
  async I1(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    const first = await w.send(s2, { message: 'hi', to: ['Planck'], idempotency_key: 'k1' });
    const second = await w.send(s2, { message: 'hi', to: ['Planck'], idempotency_key: 'k1' });
    expect([first.deduplicated, second.deduplicated]).toEqual([false, true]);
    expect(second.signal).toStrictEqual(first.signal);
    expect(second.seq).toBe(first.seq);
    expect((await w.signals()).length).toBe(1);
    // Recipients are not resolved again: Planck is now another session, and the answer is still the stored signal.
    await w.end(s1);
    const s3 = await w.start();
    expect(s3.name).toBe('Planck');
    const head = await w.store.head();
    const third = await w.send(s2, { message: '  hi  ', to: ['Planck'], idempotency_key: 'k1' });
    expect([third.deduplicated, third.signal.signal_id, third.signal.recipients]).toEqual([true, first.signal.signal_id, [s1.id]]);
    expect(await w.store.head()).toEqual(head);
  },

  async I2(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    const stored = await w.send(s2, { message: 'hi', to: [s1.id], idempotency_key: 'k1' });
    const other = await w.send(s2, { message: 'other', to: [s1.id] });
    for (const changed of [{ message: 'different' }, { intent: 'PROPOSE' as const }, { reply_to: other.signal.signal_id }]) {
      const error = await w.refusedWithNothingAppended(ErrorCode.IDEMPOTENCY_CONFLICT, () => w.send(s2, { message: 'hi', to: [s1.id], idempotency_key: 'k1', ...changed }));
      expect(error.exitCode).toBe(4);
    }
    expect((await w.signals()).map((s) => s.data.signal_id)).toEqual([stored.signal.signal_id, other.signal.signal_id]);
  },

  async I3(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const a = await w.send(s2, { message: 'hi', to: [s1.id], idempotency_key: 'k1' });
    const b = await w.send(s0, { message: 'hi', to: [s1.id], idempotency_key: 'k1' });
    const c = await w.send(undefined, { message: 'hi', to: [s1.id], idempotency_key: 'k1' }, { envIdentity: 'ops:bot:1' });
    expect([a.deduplicated, b.deduplicated, c.deduplicated]).toEqual([false, false, false]);
    expect(new Set([a, b, c].map((s) => s.signal.signal_id)).size).toBe(3);
    expect([a, b, c].map((s) => s.signal.sender_identity)).toEqual([s2.identity, s0.identity, 'ops:bot:1']);
    expect((await w.signals()).length).toBe(3);
    expect(idsOf(await w.visible(s1.identity))).toEqual([a, b, c].map((s) => s.signal.signal_id));
  },

  async I4(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    const results: SendResult[] = [];
    for (let i = 0; i < 3; i++) results.push(await w.send(s2, { message: 'same words', to: [s1.id] }));
    expect(results.map((r) => r.deduplicated)).toEqual([false, false, false]);
    expect(new Set(results.map((r) => r.signal.signal_id)).size).toBe(3);
    expect((await w.signals()).map((s) => s.data.signal_id)).toEqual(results.map((r) => r.signal.signal_id));
    expect((await w.signals()).every((s) => !('idempotency_key' in s.data))).toBe(true);
  },

  async I5(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const d = await w.send(s0, { message: 'read me', to: [s1.id] });
    expect((await w.inbox(s1, {})).marked).toBe(1);
    expect((await w.inbox(s1, {})).marked).toBe(0);
    expect((await w.inbox(s1, { thread: d.signal.thread_id })).marked).toBe(0);
    await w.drain(s1.id);
    await w.watchOnce(s1.id);
    expect((await w.receipts()).map((r) => [r.data.signal_id, r.data.reader_identity, r.data.delivery_state])).toEqual([[d.signal.signal_id, s1.identity, 'delivered']]);
    // Duplicate delivered receipts (two processes marking at once) fold to one state, with no finding.
    const receipt = (await w.receipts())[0]!.data;
    await w.append([{ type: 'receipt.recorded', stream: `thread/${receipt.thread_id}`, data: { ...receipt, via: 'watch' } }]);
    const state = await w.state();
    expect(receiptState(state, d.signal.signal_id, s1.identity)).toBe('delivered');
    expect(state.findings).toEqual([]);
    expect((await w.inbox(s1, { all: true })).signals.map((s) => [s.read, s.delivery_state])).toEqual([[true, 'delivered']]);
  },

  // ---- Concurrency ----
  async X1(w) {
    const s1 = await w.start();
    const senders = [];
    for (let i = 0; i < CONCURRENCY; i++) senders.push(await w.start());
    const handles = await Promise.all(senders.map(() => w.harness.openAnother()));
    const results = await Promise.all(
      senders.flatMap((sender, i) => [0, 1].map((k) => w.send(sender, { message: `n${i}.${k}`, to: [s1.id] }, { store: handles[i]! }))),
    );
    const events = await w.events();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect((await w.store.verify()).ok).toBe(true);
    const stored = await w.signals();
    expect(stored.length).toBe(2 * CONCURRENCY);
    expect(new Set(stored.map((s) => s.data.signal_id))).toEqual(new Set(results.map((r) => r.signal.signal_id)));
    for (const r of results) expect(stored.find((s) => s.data.signal_id === r.signal.signal_id)?.seq).toBe(r.seq);
    // The recipient sees every one, in seq order.
    const inbox = await w.visible(s1.identity);
    expect(inbox.map((s) => s.seq)).toEqual([...results.map((r) => r.seq)].sort((a, b) => a - b));
  },

  async X2(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const threads = Array.from({ length: CONCURRENCY }, (_, i) => `x2-${i}`);
    const sent: SendResult[] = [];
    for (const thread of threads) sent.push(await w.send(s0, { message: thread, to: [s1.id, s2.id], thread }));
    const handles = await Promise.all([...threads, ...threads].map(() => w.harness.openAnother()));
    const marks = await Promise.all([
      ...threads.map((thread, i) => w.inbox(s1, { thread }, { store: handles[i]! })),
      ...threads.map((thread, i) => w.inbox(s2, { thread }, { store: handles[threads.length + i]! })),
    ]);
    expect(marks.map((m) => m.marked)).toEqual(marks.map(() => 1));
    const receipts = await w.receipts();
    expect(receipts.length).toBe(2 * CONCURRENCY);
    for (const reader of [s1, s2]) {
      expect(new Set(receipts.filter((r) => r.data.reader_identity === reader.identity).map((r) => r.data.signal_id))).toEqual(new Set(sent.map((s) => s.signal.signal_id)));
    }
    for (const s of sent) {
      expect(await w.stateOf(s.signal.signal_id, s1.identity)).toBe('delivered');
      expect(await w.stateOf(s.signal.signal_id, s2.identity)).toBe('delivered');
    }
    const events = await w.events();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  },

  async X3(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const d = await w.send(s0, { message: 'read me once', to: [s1.id] });
    const handles = await Promise.all(Array.from({ length: CONCURRENCY }, () => w.harness.openAnother()));
    const marks = await Promise.all(handles.map((store) => w.inbox(s1, {}, { store })));
    // At least one marked it; however many did, the receipts fold to one delivered state.
    expect(marks.some((m) => m.marked === 1)).toBe(true);
    const receipts = await w.receipts();
    expect(receipts.length).toBe(marks.reduce((sum, m) => sum + m.marked, 0));
    for (const r of receipts) expect([r.data.signal_id, r.data.reader_identity, r.data.delivery_state]).toEqual([d.signal.signal_id, s1.identity, 'delivered']);
    const state = await w.state();
    expect(receiptState(state, d.signal.signal_id, s1.identity)).toBe('delivered');
    expect(state.findings).toEqual([]);
    expect((await w.inbox(s1, {})).signals).toEqual([]);
    expect((await w.inbox(s1, { all: true })).signals.map((s) => [s.signal_id, s.delivery_state])).toEqual([[d.signal.signal_id, 'delivered']]);
  },

  async X4(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    const handles = await Promise.all(Array.from({ length: CONCURRENCY }, () => w.harness.openAnother()));
    const results = await Promise.all(handles.map((store) => w.send(s2, { message: 'race', to: [s1.id], idempotency_key: 'k-race' }, { store })));
    expect(new Set(results.map((r) => r.signal.signal_id)).size).toBe(1);
    expect(results.filter((r) => !r.deduplicated).length).toBe(1);
    const stored = await w.signals();
    expect(stored.map((s) => s.data.signal_id)).toEqual([results[0]!.signal.signal_id]);
    expect(results.every((r) => r.seq === stored[0]!.seq)).toBe(true);
  },

  async X5(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const early = await w.send(s0, { message: 'before the watcher', to: [s1.id] });
    const delivered: WatchDelivery[] = [];
    let failure: unknown;
    const watch = await watchSignals(w.env(), s1.id, { once: false, clock: () => NOW, onDelivery: (d) => delivered.push(d) });
    watch.done.catch((error: unknown) => {
      failure = error;
    });
    const until = async (condition: () => boolean, what: string): Promise<void> => {
      await waitFor(() => failure !== undefined || condition(), what);
      if (failure !== undefined) throw failure;
    };
    try {
      // The catch-up set is delivered before watchSignals returns.
      expect(idsOf(delivered.map((d) => d.signal))).toEqual([early.signal.signal_id]);
      const rounds = 4;
      // Per round, visible to S1: directed to it, or a broadcast by someone else; invisible: to others only, or S1's own.
      const plan = (writer: Who, round: number): SendSignalInput => {
        const message = `${writer.name} #${round}`;
        if (writer.id === s1.id) return round % 2 === 0 ? { message, to: [s2.id] } : { message };
        const other = writer.id === s0.id ? s2 : s0;
        return [{ message, to: [s1.id] }, { message }, { message, to: [s1.id, other.id] }, { message, to: [other.id] }][round % 4]!;
      };
      const writers = [s0, s2, s1];
      const handles = await Promise.all(writers.map(() => w.harness.openAnother()));
      const sent = await Promise.all(
        writers.map(async (writer, i) => {
          const out: SendResult[] = [];
          for (let round = 0; round < rounds; round++) out.push(await w.send(writer, plan(writer, round), { store: handles[i]! }));
          return out;
        }),
      );
      // A last visible signal: once it is delivered, every earlier event has been through the watcher.
      const last = await w.send(s2, { message: 'last', to: [s1.id] });
      const all = [early, ...sent.flat(), last];
      const visible = all
        .filter((s) => s.signal.sender_identity !== s1.identity && (s.signal.recipients.length === 0 || s.signal.recipients.includes(s1.identity)))
        .sort((a, b) => a.seq - b.seq);
      expect(visible.length).toBe(2 + 2 * 3);
      await until(() => delivered.some((d) => d.signal.signal_id === last.signal.signal_id), 'the last signal to be delivered');
      await sleep(50);
      if (failure !== undefined) throw failure;
      expect(idsOf(delivered.map((d) => d.signal))).toEqual(idsOf(visible.map((s) => s.signal)));
      expect(delivered.every((d) => d.session_id === s1.id && d.reader_identity === s1.identity)).toBe(true);
      // Each delivery is followed by its receipt; wait for the last one before closing.
      const deadline = Date.now() + 15_000;
      while (!(await w.receipts()).some((r) => r.data.via === 'watch' && r.data.signal_id === last.signal.signal_id)) {
        if (Date.now() > deadline) throw new Error('timed out waiting for the watcher to record its last receipt');
        await sleep(10);
      }
    } finally {
      await watch.close();
    }
    const byWatch = (await w.receipts()).filter((r) => r.data.via === 'watch');
    expect(byWatch.map((r) => r.data.signal_id).sort()).toEqual(idsOf(delivered.map((d) => d.signal)).sort());
    // A restarted watcher has nothing left to deliver.
    expect(await w.watchOnce(s1.id)).toEqual([]);
  },

  async X6(w) {
    // Deterministic race: two starts that recorded the same name, settled by the fold.
    const raced = ['session_00000000000000000000x6a1', 'session_00000000000000000000x6a2'];
    await w.append(raced.map((session_id) => ({ type: 'session.started', stream: `session/${session_id}`, data: { session_id, display_name: 'Planck', ttl_seconds: 4 * 3600 } })));
    // Real concurrent starts on separate handles.
    const handles = await Promise.all(Array.from({ length: CONCURRENCY }, () => w.harness.openAnother()));
    const started = await Promise.all(handles.map((store) => w.start({}, store)));
    expect(new Set(started.map((s) => s.id)).size).toBe(CONCURRENCY);
    // End two, then race more starts into the freed names.
    await w.end(started[0]!);
    await w.end(started[1]!);
    const more = await Promise.all(handles.slice(0, 3).map((store) => w.start({}, store)));

    // At every log position, the names held by non-ended sessions are distinct.
    let state = initCoordination();
    for (const event of await w.events()) {
      state = applyCoordination(state, event);
      const held = [...state.sessions.values()].filter((s) => s.stored_status === 'active').map((s) => s.display_name);
      expect(new Set(held).size, `names at seq ${event.seq}: ${held.join(', ')}`).toBe(held.length);
    }
    // Each start printed the name the fold settled for it, and the fold agrees with itself.
    const final = await w.state();
    for (const s of [...started, ...more]) expect(final.sessions.get(s.id)?.display_name).toBe(s.name);
    expect(raced.map((id) => final.sessions.get(id)?.display_name)).toEqual(['Planck', 'Planck-2']);
    const live = [...final.sessions.values()].filter((s) => s.stored_status === 'active').map((s) => s.display_name);
    expect(live.length).toBe(2 + CONCURRENCY - 2 + 3);
    expect(new Set(live).size).toBe(live.length);
    expect(final.findings).toEqual([]);
  },
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
