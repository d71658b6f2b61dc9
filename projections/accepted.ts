import type { DecodedEvent } from '../events/envelope.js';
import { formatProblems } from '../events/validation.js';

/**
 * The data of an event the catalog accepted, typed as its schema's output, or `success: false`
 * when the catalog refused it. The projection runner decodes each event once (catalog.decode);
 * folds read its verdict here instead of checking the data again.
 */
export function accepted<T>(event: DecodedEvent): { success: true; data: T } | { success: false } {
  return event.rejected === undefined ? { success: true, data: event.data as T } : { success: false };
}

/** A finding's words for an event the catalog refused: the type, then each field and rule. */
export function rejectionText(event: DecodedEvent): string {
  if (event.rejected === undefined) return `${event.type} accepted`;
  if (event.rejected.reason === 'unknown_type') return `unknown event type ${event.type}`;
  return `invalid ${event.type} data: ${formatProblems(event.rejected.problems)}`;
}
