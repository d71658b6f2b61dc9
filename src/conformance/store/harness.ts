import { expect, it } from 'vitest';
import type { NewEvent, StoredEvent } from '../../../events/envelope.js';
import { GENESIS_HASH } from '../../../events/patterns.js';
import type { BatonError } from '../../errors.js';
import type { EventStore, ReadOptions } from '../../store/contract.js';
import { refusal, waitUntil } from '../async-checks.js';

/** What every part of the store conformance suite shares: the harness an adapter hands over, and small helpers. */

export interface ConformanceHarness {
  /** A fresh, empty store. */
  store: EventStore;
  /**
   * A second independent handle on the same backing log (JSONL: a new store on the same workspace;
   * PostgreSQL: a new connection; memory: the same instance).
   */
  openAnother(): Promise<EventStore>;
  /** Close every handle and remove whatever backs the log. */
  cleanup(): Promise<void>;
}

export type ConformanceFactory = () => Promise<ConformanceHarness>;

export const NOTE = 'note.recorded';

export function note(stream: string, text: string, extra: Partial<Pick<NewEvent, 'at' | 'actor'>> = {}): NewEvent {
  return { type: NOTE, stream, data: { text }, ...extra };
}

export async function readAll(store: EventStore, options?: ReadOptions): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const event of store.read(options)) out.push(event);
  return out;
}

export const waitFor = (condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> => waitUntil(condition, what, timeoutMs);

export const seqsOf = (events: readonly StoredEvent[]): number[] => events.map((e) => e.seq);
export const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

export function withoutHash(event: StoredEvent): Omit<StoredEvent, 'hash'> {
  const { hash: _hash, ...rest } = event;
  return rest;
}

/** What a part of the suite registers its cases with. */
export interface Scenarios {
  factory: ConformanceFactory;
  /** One `it` with a fresh harness, cleaned up however the body ends. */
  scenario(name: string, body: (harness: ConformanceHarness) => Promise<void>): void;
  /** Asserts the store holds exactly `before` (same head, same events). */
  expectUnchanged(store: EventStore, before: readonly StoredEvent[]): Promise<void>;
  /** Runs `operation`, which must be refused with `code` and leave the store exactly as it was; returns the error. */
  refusedUnchanged(store: EventStore, code: string, operation: () => Promise<unknown>): Promise<BatonError>;
}

export function scenariosFor(factory: ConformanceFactory): Scenarios {
  /** One `it` with a fresh harness, cleaned up however the body ends. */
  const scenario = (name: string, body: (harness: ConformanceHarness) => Promise<void>): void => {
    it(name, async () => {
      const harness = await factory();
      try {
        await body(harness);
      } finally {
        await harness.cleanup();
      }
    });
  };

  /** Asserts the store holds exactly `before` (same head, same events). */
  const expectUnchanged = async (store: EventStore, before: readonly StoredEvent[]): Promise<void> => {
    expect(await readAll(store)).toEqual(before);
    const head = await store.head();
    expect(head.seq).toBe(before.length);
    expect(head.hash).toBe(before.at(-1)?.hash ?? GENESIS_HASH);
  };

  /** Runs `operation`, which must be refused with `code` and leave the store exactly as it was; returns the error. */
  const refusedUnchanged = async (store: EventStore, code: string, operation: () => Promise<unknown>): Promise<BatonError> => {
    const before = await readAll(store);
    const error = await refusal(operation());
    expect(error.code).toBe(code);
    await expectUnchanged(store, before);
    return error;
  };
  return { factory, scenario, expectUnchanged, refusedUnchanged };
}
