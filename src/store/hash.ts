import { createHash } from 'node:crypto';
import { canonicalEnvelope } from '../../events/canonical.js';
import type { StoredEvent } from '../../events/envelope.js';

/** SHA-256 (hex) of the event's canonical JSON without `hash`. */
export function hashEvent(event: Omit<StoredEvent, 'hash'> | StoredEvent): string {
  return createHash('sha256').update(canonicalEnvelope(event as Record<string, unknown>, false)).digest('hex');
}

/** The stored line for an event (no trailing newline). */
export function serializeEvent(event: StoredEvent): string {
  return canonicalEnvelope(event as Record<string, unknown>, true);
}
