import type { EventCatalog } from '../../events/catalog.js';
import { StoredEventSchema, type StoredEvent } from '../../events/envelope.js';
import { INVALID } from '../../events/compiled.js';
import { StoredEventSchema as CompiledStoredEvent } from '../../events/validators.generated.js';
import { GENESIS_HASH } from '../../events/patterns.js';
import { formatProblems, describeZodIssues } from '../../events/validation.js';
import type { BadPosition } from './contract.js';
import { sha256Hex } from './hash.js';
import { canonicalEnvelope, ENVELOPE_KEY_ORDER } from '../../events/canonical.js';

/**
 * Checks stored lines one after another: JSON, envelope schema, catalog-valid data, contiguous
 * seq, `prev` linking to the previous hash, the recomputed hash, and the line being exactly the
 * event's canonical form (so any flipped byte is caught, even one that still parses).
 */
export class ChainChecker {
  /** The seq the next line must have; undefined until a checker started at 'first-line' met one. */
  private expectedSeq: number | undefined;
  private prevHash: string | undefined;
  /**
   * Set by a checker started at 'first-line' once its first line's envelope parsed (even when the
   * line then fails a later check): the link to the event before it, for the caller to check.
   */
  first: { seq: number; prev: string } | undefined;
  checked = 0;

  /**
   * `start`: where the chain continues. By default the log's beginning (seq 1 after the genesis
   * hash). 'first-line' takes the first line's own seq and prev as given and checks every later
   * line against it: a verify worker checks a range from the middle of the log, whose link to the
   * range before it only the coordinator can check (jsonl/parallel-verify.ts).
   */
  constructor(
    private readonly catalog: EventCatalog,
    start: 'first-line' | { seq: number; prev: string } = { seq: 1, prev: GENESIS_HASH },
  ) {
    if (start !== 'first-line') {
      this.expectedSeq = start.seq;
      this.prevHash = start.prev;
    }
  }

  /** The seq of the last sound line (for a 'first-line' checker, 0 until its first line's envelope parsed). */
  get headSeq(): number {
    return this.expectedSeq === undefined ? 0 : this.expectedSeq - 1;
  }

  /**
   * Returns the problem with this line, or the parsed event when it is sound. The checks run in a
   * fixed order and the first failing one is reported (parallel-verify.ts mirrors it): JSON,
   * envelope, seq, prev, hash, canonical form, data. A 'first-line' checker reports seq 0 for a
   * first line that is not a valid envelope (its caller knows which seq that line should have).
   */
  check(line: string, offset: number, segment?: string): { ok: true; event: StoredEvent } | { ok: false; bad: BadPosition } {
    const bad = (reason: string): { ok: false; bad: BadPosition } => ({
      ok: false,
      bad: { seq: this.expectedSeq ?? 0, offset, ...(segment !== undefined ? { segment } : {}), reason },
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return bad('line is not valid JSON');
    }
    // The compiled check settles a well-formed envelope; zod words what is wrong with the rest.
    const compiled = CompiledStoredEvent.parse(parsed);
    let event: StoredEvent;
    if (compiled !== INVALID) {
      event = compiled;
    } else {
      const shape = StoredEventSchema.safeParse(parsed);
      if (!shape.success) return bad(`envelope invalid: ${formatProblems(describeZodIssues(shape.error))}`);
      event = shape.data;
    }
    if (this.expectedSeq === undefined) {
      // Started at 'first-line': this line says where the chain continues; its link is the caller's to check.
      this.first = { seq: event.seq, prev: event.prev };
      this.expectedSeq = event.seq;
      this.prevHash = event.prev;
    }
    if (event.seq !== this.expectedSeq) return bad(`seq ${event.seq} where ${this.expectedSeq} was expected`);
    if (event.prev !== this.prevHash) return bad('prev does not match the previous event hash (chain broken)');
    // The hash covers the canonical form without `hash`, and the stored line must be that form with
    // `hash` (the last envelope key, a checked hex string) appended. When the parsed line's keys are
    // already in canonical order, the native JSON.stringify reproduces the canonical form, so the
    // line itself is the canonical text and need not be rebuilt key by key.
    const suffix = ',"hash":"' + event.hash + '"}';
    const body =
      line.endsWith(suffix) && inCanonicalKeyOrder(event) && JSON.stringify(event) === line
        ? line.slice(0, line.length - suffix.length) + '}'
        : canonicalEnvelope(event as Record<string, unknown>, false);
    const hash = sha256Hex(body);
    if (hash !== event.hash) return bad('hash does not match the event content (tampered)');
    if (line !== body.slice(0, -1) + suffix) return bad('line is not in canonical form (tampered)');
    const decoded = this.catalog.decode(event);
    if (!decoded.ok) return bad(`data invalid for ${event.type}: ${formatProblems(decoded.problems)}`);
    this.expectedSeq += 1;
    this.prevHash = event.hash;
    this.checked += 1;
    return { ok: true, event };
  }
}

/** Envelope keys in the fixed order, and keys inside `data` sorted at every depth (as canonicalValue sorts). */
function inCanonicalKeyOrder(event: StoredEvent): boolean {
  let at = 0;
  for (const key of Object.keys(event)) {
    while (at < ENVELOPE_KEY_ORDER.length && ENVELOPE_KEY_ORDER[at] !== key) at++;
    if (at === ENVELOPE_KEY_ORDER.length) return false;
    at++;
  }
  return sortedDeep(event.data);
}

function sortedDeep(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (!sortedDeep(item)) return false;
    return true;
  }
  const keys = Object.keys(value);
  for (let i = 1; i < keys.length; i++) if (!(keys[i - 1]! < keys[i]!)) return false;
  for (const key of keys) if (!sortedDeep((value as Record<string, unknown>)[key])) return false;
  return true;
}
