import type { EventCatalog } from '../../events/catalog.js';
import { StoredEventSchema, type StoredEvent } from '../../events/envelope.js';
import { GENESIS_HASH } from '../../events/patterns.js';
import { formatProblems, describeZodIssues } from '../../events/validation.js';
import type { BadPosition } from './contract.js';
import { createHash } from 'node:crypto';
import { canonicalEnvelope } from '../../events/canonical.js';

/**
 * Checks stored lines one after another: JSON, envelope schema, catalog-valid data, contiguous
 * seq, `prev` linking to the previous hash, the recomputed hash, and the line being exactly the
 * event's canonical form (so any flipped byte is caught, even one that still parses).
 */
export class ChainChecker {
  private expectedSeq = 1;
  private prevHash = GENESIS_HASH;
  checked = 0;

  constructor(private readonly catalog: EventCatalog) {}

  get headSeq(): number {
    return this.expectedSeq - 1;
  }

  /** Returns the problem with this line, or the parsed event when it is sound. */
  check(line: string, offset: number, segment?: string): { ok: true; event: StoredEvent } | { ok: false; bad: BadPosition } {
    const bad = (reason: string): { ok: false; bad: BadPosition } => ({
      ok: false,
      bad: { seq: this.expectedSeq, offset, ...(segment !== undefined ? { segment } : {}), reason },
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return bad('line is not valid JSON');
    }
    const shape = StoredEventSchema.safeParse(parsed);
    if (!shape.success) return bad(`envelope invalid: ${formatProblems(describeZodIssues(shape.error))}`);
    const event = shape.data;
    if (event.seq !== this.expectedSeq) return bad(`seq ${event.seq} where ${this.expectedSeq} was expected`);
    if (event.prev !== this.prevHash) return bad('prev does not match the previous event hash (chain broken)');
    // Canonicalise once: the hash covers the canonical form without `hash`, and the stored line must
    // be that form with `hash` (the last envelope key, a checked hex string) appended.
    const body = canonicalEnvelope(event as Record<string, unknown>, false);
    const hash = createHash('sha256').update(body).digest('hex');
    if (hash !== event.hash) return bad('hash does not match the event content (tampered)');
    if (line !== body.slice(0, -1) + ',"hash":"' + event.hash + '"}') return bad('line is not in canonical form (tampered)');
    const decoded = this.catalog.decode(event);
    if (!decoded.ok) return bad(`data invalid for ${event.type}: ${formatProblems(decoded.problems)}`);
    this.expectedSeq += 1;
    this.prevHash = event.hash;
    this.checked += 1;
    return { ok: true, event };
  }
}
