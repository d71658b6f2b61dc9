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

/**
 * Hash and stored line together, canonicalising once: the line is the hashed form with `hash`
 * (always the last envelope key) appended.
 */
export function sealEvent(unsealed: Omit<StoredEvent, 'hash'>): { event: StoredEvent; line: string } {
  const body = canonicalEnvelope(unsealed as Record<string, unknown>, false);
  const hash = createHash('sha256').update(body).digest('hex');
  return { event: { ...unsealed, hash }, line: `${body.slice(0, -1)},"hash":"${hash}"}` };
}
