import { expect } from 'vitest';
import type { EventCatalog } from '../../../events/catalog.js';
import { A2A_SCHEMA_VERSION, SYSTEM_IDENTITY } from '../../../events/coordination/identities.js';
import { ReceiptRecordedData } from '../../../events/coordination/receipt.js';
import { type A2ASignalV1, SignalSentData } from '../../../events/coordination/signal.js';
import type { BatonEvent } from '../../../events/baton-event.js';
import type { NewEvent } from '../../../events/envelope.js';
import { createCatalog } from '../../../events/index.js';
import type { ConvergenceView } from '../../../projections/coordination/convergence.js';
import { receiptState, type InboxItem, type InboxView } from '../../../projections/coordination/signals.js';
import type { CoordinationState } from '../../../projections/coordination/state.js';
import { drainHook, watchSignals, type DrainResult, type WatchDelivery } from '../../coordination/delivery.js';
import { loadState, type CoordinationEnv } from '../../coordination/env.js';
import { readInbox, threadConvergence, type InboxInput } from '../../coordination/inbox.js';
import { sendSignal, type SendResult, type SendSignalInput } from '../../coordination/send.js';
import { endSession, startSession, type StartSessionInput } from '../../coordination/sessions.js';
import { A2AProfile, type CoordinationSettings } from '../../coordination/settings.js';
import type { BatonError } from '../../errors.js';
import type { EventStore } from '../../store/contract.js';
import { refusal, waitUntil } from '../async-checks.js';
import type { ConformanceHarness } from '../store-conformance.js';
import { A2A_CONFORMANCE_NOW, A2A_CONFORMANCE_WORKSPACE_ID, type A2AConformanceProfile } from './cases.js';

// ---- the world a case runs in ------------------------------------------------------------------

export const NOW = A2A_CONFORMANCE_NOW;
export const WS = A2A_CONFORMANCE_WORKSPACE_ID;
export const POOL = ['Planck', 'Noether', 'Curie', 'Dirac'] as const;
export const CONCURRENCY = 6;

/** A started session as the cases use it: id, canonical (reader) identity, display name. */
export interface Who {
  id: string;
  identity: string;
  name: string;
}

export interface EnvOptions {
  store?: EventStore;
  settings?: CoordinationSettings;
  envIdentity?: string;
}

export interface StoredReceipt {
  seq: number;
  data: ReceiptRecordedData;
}

export interface StoredSignal {
  seq: number;
  stream: string;
  data: SignalSentData;
}

/** Deliberately ill-typed input, the way a transport or a caller without types would hand it over. */
export function untyped<T>(value: Record<string, unknown>): T {
  return value as unknown as T;
}

export const waitFor = (condition: () => boolean, what: string): Promise<void> => waitUntil(condition, what, 15_000);

export const idsOf = (items: readonly { signal_id: string }[]): string[] => items.map((s) => s.signal_id);

/** The contract part of an inbox item (its A2A.V1 fields, without the inbox's own keys). */
export function contractOf(item: InboxItem): A2ASignalV1 {
  const { seq: _seq, read: _read, delivery_state: _state, sender_display_name: _name, ...contract } = item;
  return contract;
}

/** The world a case runs in: one fresh harness, the coordination operations acting as a session, and what the log then holds. */
export class World {
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

export type CaseBody = (world: World) => Promise<void>;

// ---- the cases ---------------------------------------------------------------------------------
