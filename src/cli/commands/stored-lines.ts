import type { StoredEvent } from '../../../events/envelope.js';
import type { EventStore, ReadOptions } from '../../store/contract.js';
import { serializeEvent } from '../../store/hash.js';

/**
 * Stored events as lines. The JSONL and PostgreSQL adapters hand back the bytes exactly as stored
 * (the PostgreSQL one asynchronously); other adapters give the canonical form, which is the same
 * bytes for any event that verifies.
 */
interface RawLineReader {
  readLines(options: ReadOptions): Iterable<{ line: string; event: StoredEvent }> | AsyncIterable<{ line: string; event: StoredEvent }>;
}

function hasRawLines(store: EventStore): store is EventStore & RawLineReader {
  return typeof (store as Partial<RawLineReader>).readLines === 'function';
}

export async function* storedLines(store: EventStore, options: ReadOptions): AsyncGenerator<{ line: string; event: StoredEvent }> {
  if (hasRawLines(store)) {
    yield* store.readLines(options);
    return;
  }
  for await (const event of store.read(options)) yield { line: serializeEvent(event), event };
}
