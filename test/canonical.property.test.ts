import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalEnvelope, canonicalValue, ENVELOPE_KEY_ORDER, isJsonReady } from '../events/canonical.js';
import { jsonPayloadArbitrary } from './helpers/json-payload-arbitrary.js';

// canonicalEnvelope prints with the native JSON.stringify when every value is already canonical
// (isJsonReady). These properties pin that fast path to the key-by-key definition: canonicalValue
// of each envelope field, in envelope order, with data keys sorted at every depth.

/** The definition: each present envelope key in order, each value by canonicalValue. */
function reference(event: Record<string, unknown>, withHash: boolean): string {
  const parts: string[] = [];
  for (const key of ENVELOPE_KEY_ORDER) {
    if (key === 'hash' && !withHash) continue;
    if (event[key] === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${canonicalValue(event[key])}`);
  }
  return `{${parts.join(',')}}`;
}

/** Values canonicalValue accepts, with unsorted keys, integer-like keys, -0 and undefined holes. */
const data = jsonPayloadArbitrary({ specialKeys: ['10', '2', '0', 'a', 'B', '__proto__x', 'ä'] });

const envelope = fc.record(
  {
    v: fc.constant(1),
    seq: fc.nat(),
    id: fc.string(),
    type: fc.string(),
    stream: fc.string(),
    at: fc.string(),
    actor: fc.string({ unit: 'binary' }),
    data,
    idempotency_key: fc.string(),
    batch_end: fc.nat(),
    prev: fc.string(),
    hash: fc.string(),
  },
  { requiredKeys: ['v', 'seq', 'id', 'type', 'stream', 'at', 'actor', 'data', 'prev'] },
);

describe('canonical JSON', () => {
  it('canonicalEnvelope equals the key-by-key definition, with and without hash, whatever the key order given', () => {
    fc.assert(
      fc.property(envelope, fc.boolean(), fc.boolean(), (event, withHash, reversed) => {
        // The same fields handed over in reverse insertion order must print identically.
        const given = reversed ? Object.fromEntries(Object.entries(event).reverse()) : event;
        expect(canonicalEnvelope(given, withHash)).toBe(reference(event, withHash));
      }),
      { numRuns: 2000 },
    );
  });

  it('isJsonReady implies JSON.stringify is the canonical form', () => {
    fc.assert(
      fc.property(fc.oneof(data, fc.anything({ withNullPrototype: true, withObjectString: true })), (value) => {
        if (!isJsonReady(value)) return;
        expect(JSON.stringify(value)).toBe(canonicalValue(value));
      }),
      { numRuns: 3000 },
    );
  });

  it('isJsonReady refuses what the native printer would print differently', () => {
    expect(isJsonReady({ b: 1, a: 2 })).toBe(false);
    expect(isJsonReady({ 10: 'x', 2: 'y' })).toBe(false); // printed 2 before 10; canonical sorts "10" first
    expect(isJsonReady({ a: Number.NaN })).toBe(false);
    expect(isJsonReady({ a: undefined })).toBe(false);
    expect(isJsonReady([new Date(0)])).toBe(false);
    expect(isJsonReady({ a: [1, { b: null, c: 'd' }] })).toBe(true);
    // A non-finite number has no canonical form: the slow path still refuses it.
    expect(() => canonicalEnvelope({ v: 1, seq: 1, data: { x: Number.POSITIVE_INFINITY } }, false)).toThrow(TypeError);
  });
});
