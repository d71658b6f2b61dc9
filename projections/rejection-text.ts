import type { BatonEvent } from '../events/baton-event.js';
import { formatProblems } from '../events/validation.js';

/** A finding's words for an event the catalog refused: the type, then each field and rule. */
export function rejectionText(event: BatonEvent): string {
  if (event.rejected === undefined) return `${event.type} accepted`;
  if (event.rejected.reason === 'unknown_type') return `unknown event type ${event.type}`;
  return `invalid ${event.type} data: ${formatProblems(event.rejected.problems)}`;
}
