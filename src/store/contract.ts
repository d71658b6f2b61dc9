import type { NewEvent, StoredEvent } from '../../events/envelope.js';

/**
 * The one asynchronous contract every adapter implements (JSONL, in-memory, PostgreSQL) and the
 * conformance suite in `src/conformance/` proves.
 */

/** Per-stream optimistic concurrency: an exact version, or only "must not / must exist". */
import type { ExpectedVersion } from '../../deciders/decision.js';
export type { ExpectedVersion };

export interface AppendOptions {
  /** One value checked against every stream the batch touches, or a value per stream. */
  expectedVersion?: ExpectedVersion | Readonly<Record<string, ExpectedVersion>>;
  /** Same key and same content → the events stored the first time, nothing written. */
  idempotencyKey?: string;
}

export interface AppendResult {
  events: StoredEvent[];
  /** True when the idempotency key had been used with the same content: nothing was written. */
  deduplicated: boolean;
}

export interface ReadOptions {
  /** First seq to return (inclusive). */
  from?: number;
  /** Last seq to return (inclusive). */
  to?: number;
  streams?: readonly string[];
  types?: readonly string[];
}

export interface Head {
  seq: number;
  hash: string;
}

export interface BadPosition {
  seq: number;
  /** Byte offset of the bad line inside its segment (JSONL) or the row position (other adapters). */
  offset: number;
  segment?: string;
  reason: string;
  /**
   * Set when the bad bytes are the log's uncommitted tail (JSONL): a whole last event whose newline
   * is missing or damaged (`unterminated_event`, repaired in place), or a torn write (`torn`,
   * quarantined). `baton log repair`, or the next append, settles either.
   */
  tail?: 'unterminated_event' | 'torn';
}

export interface VerifyReport {
  ok: boolean;
  head_seq: number;
  checked: number;
  first_bad: BadPosition | null;
}

export type EventHandler = (event: StoredEvent) => void | Promise<void>;

export interface Subscription {
  /** Resolves once the catch-up phase has delivered every event that existed at subscribe time. */
  readonly caughtUp: Promise<void>;
  close(): Promise<void>;
}

export interface SubscribeOptions {
  /** Called when delivery stops because the log cannot be read (corrupt line, store gone). */
  onError?: (error: unknown) => void;
}

export interface StorageInfo {
  /** Segment files (JSONL), 0 where the adapter has none. */
  segments: number;
  /** Bytes of stored events. */
  bytes: number;
}

export interface EventStore {
  /** Which adapter this is: `jsonl`, `memory`, `postgres`. */
  readonly kind: string;
  /** Append a batch, all-or-nothing. Returns the stored events with their seq. */
  append(events: readonly NewEvent[], options?: AppendOptions): Promise<AppendResult>;
  /** Stored events in seq order, exactly as stored. */
  read(options?: ReadOptions): AsyncIterable<StoredEvent>;
  /**
   * Optional: the same events as `read`, in arrays (the adapter's own unit: up to 256 events of
   * JSONL, a page of up to 1,000 PostgreSQL rows), never empty. Folding a long log pays one promise
   * per chunk instead of one per event; the projection runner uses it when present.
   */
  readChunks?(options?: ReadOptions): AsyncIterable<readonly StoredEvent[]>;
  head(): Promise<Head>;
  /** Number of events in the stream; 0 when it has none. */
  streamVersion(stream: string): Promise<number>;
  /** Deliver events from `from` (inclusive) on, then live ones appended by any process; each once, in order. */
  subscribe(from: number, handler: EventHandler, options?: SubscribeOptions): Subscription;
  /** Walk the whole log: contiguous seq, schema-valid lines, unbroken hash chain. */
  verify(): Promise<VerifyReport>;
  /** Where and how much is stored (for `log stats`). */
  storageInfo(): Promise<StorageInfo>;
  /**
   * Load exported events, exactly as stored (seq, id, prev, hash kept), into an empty store. The
   * whole chain is verified before anything is committed; a non-empty store is a CONFLICT.
   */
  importLog(events: AsyncIterable<StoredEvent>): Promise<Head>;
  close(): Promise<void>;
}
