import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StoredEventSchema } from '../events/envelope.js';
import { INVALID } from '../events/compiled.js';
import { StoredEventSchema as CompiledStoredEvent } from '../events/validators.generated.js';

/** The compiled envelope check verify uses before asking zod (chain-checker.ts). */
const surelyValidEnvelope = (value: unknown): boolean => CompiledStoredEvent.parse(value) !== INVALID;

const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
const validEnvelope = fc.record(
  {
    v: fc.constant(1),
    seq: fc.integer({ min: 1, max: 1_000_000_000 }),
    id: fc.string({ minLength: 1, maxLength: 64 }),
    type: fc.constantFrom('note.recorded', 'wu.claimed', 'signal.sent', 'a.b_c.d'),
    stream: fc.constantFrom('note/ops', 'wu/WU-12', 'session/sess_01', 'thread/t-1:2@x'),
    at: fc.date({ min: new Date('1000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).map((d) => d.toISOString()),
    actor: fc.string({ minLength: 1, maxLength: 200 }),
    // Parsed from JSON, as verify sees it (fast-check may build null-prototype objects, which zod refuses).
    data: fc.dictionary(fc.string(), fc.jsonValue()).map((d) => JSON.parse(JSON.stringify(d)) as Record<string, unknown>),
    idempotency_key: fc.stringMatching(/^[\x21-\x7e]{1,200}$/),
    batch_end: fc.integer({ min: 1, max: 1_000_000_000 }),
    prev: hex64,
    hash: hex64,
  },
  { requiredKeys: ['v', 'seq', 'id', 'type', 'stream', 'at', 'actor', 'data', 'prev', 'hash'] },
);

/** Valid envelopes with one field replaced, removed, or an extra key added. */
const mutated = fc
  .tuple(
    validEnvelope,
    fc.constantFrom('v', 'seq', 'id', 'type', 'stream', 'at', 'actor', 'data', 'idempotency_key', 'batch_end', 'prev', 'hash', 'extra'),
    fc.anything(),
  )
  .map(([envelope, key, value]) => {
    const copy: Record<string, unknown> = { ...envelope };
    if (value === undefined) delete copy[key];
    else copy[key] = value;
    return copy;
  });

const nearMisses = fc
  .tuple(
    validEnvelope,
    fc.constantFrom(
      { at: '2026-13-01T00:00:00.000Z' },
      { at: '2026-02-30T00:00:00.000Z' },
      { at: '2026-01-01T00:00:00Z' },
      { at: '2026-01-01T00:00:00.000+01:00' },
      { at: '2023-02-29T00:00:00.000Z' },
      { at: '2024-02-29T24:00:00.000Z' },
      { at: '1900-02-29T00:00:00.000Z' },
      { at: '2026-04-31T12:00:00.000Z' },
      { seq: 0 },
      { seq: 1.5 },
      { id: '' },
      { id: 'x'.repeat(65) },
      { type: 'Note.recorded' },
      { stream: 'note' },
      { actor: '' },
      { data: [] },
      { prev: 'A'.repeat(64) },
      { hash: '0'.repeat(63) },
      { idempotency_key: 'has space' },
      { batch_end: 0 },
    ),
  )
  .map(([envelope, patch]) => ({ ...envelope, ...patch }));

describe('the compiled envelope check used by verify', () => {
  it('never accepts an envelope that the zod StoredEventSchema rejects', () => {
    fc.assert(
      fc.property(fc.oneof(validEnvelope, mutated, nearMisses, fc.anything()), (value) => {
        if (surelyValidEnvelope(value)) expect(StoredEventSchema.safeParse(value).success).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("accepts every envelope in the writer's own format, so verify rarely needs zod", () => {
    fc.assert(
      fc.property(validEnvelope, (value) => {
        expect(StoredEventSchema.safeParse(value).success).toBe(true);
        expect(surelyValidEnvelope(value)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('rejects each near miss that zod rejects', () => {
    fc.assert(
      fc.property(nearMisses, (value) => {
        if (!StoredEventSchema.safeParse(value).success) expect(surelyValidEnvelope(value)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
