import type { EventCatalog } from '../../events/catalog.js';
import type { NewEvent, StoredEvent } from '../../events/envelope.js';
import { createCatalog } from '../../events/index.js';
import { planAppend, planLines, recordWritten, validateBatch } from './append-plan.js';
import { ChainChecker } from './chain-checker.js';
import { ConflictError, invalidInput } from '../errors.js';
import type {
  AppendOptions,
  AppendResult,
  EventHandler,
  EventStore,
  Head,
  ReadOptions,
  StorageInfo,
  SubscribeOptions,
  Subscription,
  VerifyReport,
} from './contract.js';
import { DeliveryLoop } from './delivery.js';
import { serializeEvent } from './hash.js';
import { matchesFilter } from './read-filter.js';
import { emptyIndex, IndexBuilder } from './store-index.js';

export interface MemoryStoreOptions {
  catalog?: EventCatalog;
  now?: () => string;
  actor?: string;
}

/** The in-memory adapter: the contract with no durability, for tests and property models. */
export class MemoryEventStore implements EventStore {
  readonly kind = 'memory';
  private readonly events: StoredEvent[] = [];
  private readonly index = emptyIndex();
  private readonly subscriptions = new Set<DeliveryLoop>();
  private readonly catalog: EventCatalog;
  private readonly now: () => string;
  private readonly actor: string;
  /** Appends are serialised like the JSONL adapter's lock, so interleaved async callers behave alike. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(options: MemoryStoreOptions = {}) {
    this.catalog = options.catalog ?? createCatalog();
    this.now = options.now ?? (() => new Date().toISOString());
    this.actor = options.actor ?? 'system';
  }

  append(events: readonly NewEvent[], options: AppendOptions = {}): Promise<AppendResult> {
    const run = async (): Promise<AppendResult> => {
      const batch = await validateBatch(this.catalog, events, options);
      const plan = planAppend(batch, this.index, { now: this.now, defaultActor: this.actor, lastId: this.events.at(-1)?.id });
      if (plan.kind === 'deduplicated') {
        return { events: this.events.slice(plan.first - 1, plan.last).map(clone), deduplicated: true };
      }
      // Round-trip through the stored form so callers never share objects with the log.
      const stored = planLines(plan.bytes).map((line) => JSON.parse(line) as StoredEvent);
      this.events.push(...stored);
      recordWritten(this.index, stored, batch.digest, batch.idempotencyKey);
      for (const sub of this.subscriptions) sub.poke();
      return { events: stored.map(clone), deduplicated: false };
    };
    const result = this.tail.then(run, run);
    this.tail = result.catch(() => undefined);
    return result;
  }

  async *read(options: ReadOptions = {}): AsyncIterable<StoredEvent> {
    const from = Math.max(1, options.from ?? 1);
    const to = Math.min(this.events.length, options.to ?? Number.MAX_SAFE_INTEGER);
    for (let seq = from; seq <= to; seq++) {
      const event = this.events[seq - 1]!;
      if (matchesFilter(event, options)) yield clone(event);
    }
  }

  async head(): Promise<Head> {
    return { seq: this.index.seq, hash: this.index.hash };
  }

  async streamVersion(stream: string): Promise<number> {
    return this.index.streams.get(stream) ?? 0;
  }

  subscribe(from: number, handler: EventHandler, options: SubscribeOptions = {}): Subscription {
    const loop: DeliveryLoop = new DeliveryLoop(
      from,
      async (fromSeq) => this.events.slice(fromSeq - 1, fromSeq - 1 + 1000).map(clone),
      handler,
      options,
      () => {
        this.subscriptions.delete(loop);
      },
    );
    this.subscriptions.add(loop);
    loop.poke();
    return loop;
  }

  async verify(): Promise<VerifyReport> {
    const checker = new ChainChecker(this.catalog);
    for (let i = 0; i < this.events.length; i++) {
      const result = checker.check(serializeEvent(this.events[i]!), i);
      if (!result.ok) return { ok: false, head_seq: this.index.seq, checked: checker.checked, first_bad: result.bad };
    }
    return { ok: true, head_seq: this.index.seq, checked: checker.checked, first_bad: null };
  }

  async storageInfo(): Promise<StorageInfo> {
    let bytes = 0;
    for (const e of this.events) bytes += Buffer.byteLength(serializeEvent(e)) + 1;
    return { segments: 0, bytes };
  }

  importLog(events: AsyncIterable<StoredEvent>): Promise<Head> {
    const run = async (): Promise<Head> => {
      if (this.events.length > 0) throw new ConflictError(`the store is not empty (head seq ${this.index.seq}); import needs an empty store`);
      const checker = new ChainChecker(this.catalog);
      const staged: StoredEvent[] = [];
      for await (const event of events) {
        const result = checker.check(serializeEvent(event), staged.length);
        if (!result.ok) throw invalidInput(`event at seq ${result.bad.seq}: ${result.bad.reason}`, 'import');
        staged.push(result.event);
      }
      const builder = new IndexBuilder(this.index);
      for (const event of staged) {
        this.events.push(event);
        builder.add(event);
      }
      builder.flush();
      for (const sub of this.subscriptions) sub.poke();
      return { seq: this.index.seq, hash: this.index.hash };
    };
    const result = this.tail.then(run, run);
    this.tail = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    for (const sub of [...this.subscriptions]) await sub.close();
  }
}

function clone(event: StoredEvent): StoredEvent {
  return structuredClone(event);
}
