import type { AcceptedEvent, BatonEvent } from '../../events/baton-event.js';
import type { StoredEvent } from '../../events/envelope.js';
import { createCatalog } from '../../events/index.js';

const catalog = createCatalog();

/**
 * A hand-built log event as the folds receive it: decoded by the catalog, exactly as the projection
 * runner decodes what it reads (a fixture with invalid data arrives `rejected`, as it would from a log).
 */
export function decoded(event: StoredEvent): BatonEvent {
  return catalog.toBatonEvent(event);
}

/** A fixture the catalog must accept (the test's generator builds valid events only). */
export function mustAccept(event: BatonEvent): AcceptedEvent {
  if (event.rejected !== undefined) throw new Error(`fixture event ${event.seq} (${event.type}) was refused: ${JSON.stringify(event.rejected.problems)}`);
  return event;
}

/** The data of any event, read by key name (tests that look across types). */
export function dataOf(event: BatonEvent): Record<string, unknown> {
  return event.data;
}
