import { createHash } from 'node:crypto';
import { canonicalValue } from '../../events/canonical.js';
import type { StoredEvent } from '../../events/envelope.js';
import { GENESIS_HASH } from '../../events/patterns.js';

/**
 * What an adapter must know to decide an append: the head, every stream's version and every
 * idempotency key used so far. Kept in memory, rebuilt by folding stored events.
 */
export interface IdempotencyRecord {
  digest: string;
  first: number;
  last: number;
}

export interface StoreIndex {
  seq: number;
  hash: string;
  streams: Map<string, number>;
  idempotency: Map<string, IdempotencyRecord>;
}

export function emptyIndex(): StoreIndex {
  return { seq: 0, hash: GENESIS_HASH, streams: new Map(), idempotency: new Map() };
}

/** The content an idempotency key is bound to: the batch's types, streams and data. */
export function contentDigest(items: readonly { type: string; stream: string; data: unknown }[]): string {
  const body = canonicalValue(items.map((e) => ({ type: e.type, stream: e.stream, data: e.data })));
  return createHash('sha256').update(body).digest('hex');
}

/**
 * Fold stored events into the index. Events sharing an idempotency key are one batch, contiguous
 * in the log, so the digest is recomputed from the batch as it is completed.
 */
export class IndexBuilder {
  private pendingKey: string | undefined;
  private pending: StoredEvent[] = [];

  constructor(readonly index: StoreIndex) {}

  add(event: StoredEvent): void {
    const idx = this.index;
    idx.seq = event.seq;
    idx.hash = event.hash;
    idx.streams.set(event.stream, (idx.streams.get(event.stream) ?? 0) + 1);
    const key = event.idempotency_key;
    if (key !== this.pendingKey || event.seq !== (this.pending.at(-1)?.seq ?? -1) + 1 || key === undefined) {
      this.flush();
    }
    if (key !== undefined) {
      this.pendingKey = key;
      this.pending.push(event);
      const end = event.batch_end ?? event.seq;
      if (event.seq >= end) this.flush();
    }
  }

  /** Close the batch being collected (the caller reached the end of what it read). */
  flush(): void {
    if (this.pendingKey !== undefined && this.pending.length > 0) {
      const first = this.pending[0]!.seq;
      const last = this.pending.at(-1)!.seq;
      if (!this.index.idempotency.has(this.pendingKey)) {
        this.index.idempotency.set(this.pendingKey, { digest: contentDigest(this.pending), first, last });
      }
    }
    this.pendingKey = undefined;
    this.pending = [];
  }
}
