import type { StoredEvent } from '../../events/envelope.js';
import { GENESIS_HASH } from '../../events/patterns.js';
import type { EventStore } from '../store/contract.js';

/**
 * The log view's page: the last `limit` events at or before `to` (what `log show --to N --type T
 * --stream S` prints last), newest first, and the hash of event `to`. The log is read backwards in
 * windows, so a page near the head of a long log reads only its end.
 */
export interface LatestEventsQuery {
  to: number;
  limit: number;
  type?: string | undefined;
  stream?: string | undefined;
}

const WINDOW = 2000;

export async function latestEvents(store: EventStore, query: LatestEventsQuery): Promise<{ head: { seq: number; hash: string }; events: StoredEvent[] }> {
  let hash = GENESIS_HASH;
  if (query.to > 0) for await (const event of store.read({ from: query.to, to: query.to })) hash = event.hash;
  const events: StoredEvent[] = [];
  let end = query.to;
  while (end >= 1 && events.length < query.limit) {
    const start = Math.max(1, end - WINDOW + 1);
    const window: StoredEvent[] = [];
    for await (const event of store.read({
      from: start,
      to: end,
      ...(query.type ? { types: [query.type] } : {}),
      ...(query.stream ? { streams: [query.stream] } : {}),
    }))
      window.push(event);
    for (let i = window.length - 1; i >= 0 && events.length < query.limit; i--) events.push(window[i]!);
    end = start - 1;
  }
  return { head: { seq: query.to, hash }, events };
}
