import type { StoredEvent } from '../../events/envelope.js';
import type { ReadOptions } from './contract.js';

export function matchesFilter(event: StoredEvent, options: ReadOptions): boolean {
  if (options.streams && options.streams.length > 0 && !options.streams.includes(event.stream)) return false;
  if (options.types && options.types.length > 0 && !options.types.includes(event.type)) return false;
  return true;
}
