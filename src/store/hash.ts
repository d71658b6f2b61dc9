import { hash as oneShotHash } from 'node:crypto';
import { canonicalEnvelope } from '../../events/canonical.js';
import type { StoredEvent } from '../../events/envelope.js';

/** SHA-256 (hex) of the event's canonical JSON without `hash`. */
export function hashEvent(event: Omit<StoredEvent, 'hash'> | StoredEvent): string {
  return sha256Hex(canonicalEnvelope(event as Record<string, unknown>, false));
}

/** The stored line for an event (no trailing newline). */
export function serializeEvent(event: StoredEvent): string {
  return canonicalEnvelope(event as Record<string, unknown>, true);
}

/**
 * Hash and stored line together, canonicalising once: the line is the hashed form with `hash`
 * (always the last envelope key) appended. `unsealed` becomes the sealed event (it gains `hash`).
 */
export function sealEvent(unsealed: Omit<StoredEvent, 'hash'>): { event: StoredEvent; line: string } {
  const body = canonicalEnvelope(unsealed as Record<string, unknown>, false);
  const hash = sha256Hex(body);
  // The caller hands over a fresh object: seal it in place rather than copy it (`hash` is the last key).
  const event = unsealed as StoredEvent;
  event.hash = hash;
  return { event, line: `${body.slice(0, -1)},"hash":"${hash}"}` };
}

/**
 * SHA-256 (hex) of a string (its UTF-8 bytes) or of bytes, one shot: `crypto.hash` (Node ≥ 20.12)
 * skips building a Hash object and is faster than createHash for event-sized inputs — it runs
 * once per event on every read.
 */
export function sha256Hex(data: string | Uint8Array): string {
  return oneShotHash('sha256', data, 'hex');
}
