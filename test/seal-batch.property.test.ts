import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalEnvelope } from '../events/canonical.js';
import type { StoredEvent } from '../events/envelope.js';
import { planLines, sealBatch, type ValidatedBatch } from '../src/store/append-plan.js';
import { hashEvent, serializeEvent, sha256Hex } from '../src/store/hash.js';
import { jsonPayloadArbitrary } from './helpers/json-payload-arbitrary.js';

// sealBatch writes each stored line field by field straight into the batch's bytes and hashes
// those bytes. These properties pin it to the definition: every line is canonicalEnvelope of its
// event, every hash the SHA-256 of the event's canonical form without `hash`, the chain links, and
// the bytes are exactly the lines, newline-terminated, in UTF-8.

/** Payloads as validated events may carry them: unsorted keys, unicode, escapes, nesting, -0. */
const data = jsonPayloadArbitrary({
  specialStrings: ['"quoted"', 'back\\slash', 'line\nbreak', 'tab\t', '\u2028', '😀', 'ä', '\u0000'],
  specialKeys: ['10', '2', 'a', 'B', 'ä', 'prev', 'hash'],
});

const record = fc.dictionary(fc.string({ maxLength: 8 }), data, { maxKeys: 4 });

const event = fc.record({
  type: fc.constantFrom('note.recorded', 'wu.claimed', 'signal.sent'),
  // Every character a stream's pattern allows (sealBatch prints type and stream without escaping).
  stream: fc.constantFrom('note/a', 'note/b', 'wu/WU-1', 'session/sess_x', 'note/Z9._:@-x', 'a_b-c9/0'),
  data: record,
  actor: fc.option(fc.constantFrom('agent-ä', 'sess_1', 'quote"actor', 'system'), { nil: undefined }),
  at: fc.option(fc.constantFrom('2024-01-02T03:04:05.000Z', '2030-12-31T23:59:59.999Z'), { nil: undefined }),
});

const batch = fc.record({
  events: fc.array(event, { minLength: 1, maxLength: 6 }),
  idempotencyKey: fc.option(fc.constantFrom('k1', 'key"with\\quotes', 'a/b:c'), { nil: undefined }),
  head: fc.record({ seq: fc.nat({ max: 1_000_000 }), hash: fc.constantFrom('0'.repeat(64), sha256Hex('x')) }),
  actor: fc.constantFrom('system', 'default-ü'),
  // The last id in the log: absent, one from the past, or one ahead of this process's clock (another
  // writer's), which the batch's ids must still sort after.
  lastId: fc.option(fc.constantFrom('01ARZ3NDEKTSV4RRFFQ69G5FAV', '7ZZZZZZZZZZZZZZZZZZZZZZZZX'), { nil: undefined }),
  borrowBytes: fc.boolean(),
});

describe('sealBatch', () => {
  it('writes each event as its canonical line, hashes the canonical form, links the chain, and the bytes are the lines', () => {
    fc.assert(
      fc.property(batch, ({ events, idempotencyKey, head, actor, lastId, borrowBytes }) => {
        const validated: ValidatedBatch = { events, digest: '', idempotencyKey, expected: new Map() };
        const sealed = sealBatch(validated, head, { now: () => '2025-06-07T08:09:10.000Z', defaultActor: actor, lastId, borrowBytes });
        const lines = planLines(sealed.bytes);
        expect(lines).toHaveLength(events.length);
        expect(sealed.bytes.equals(Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8'))).toBe(true);
        let prev = head.hash;
        sealed.events.forEach((stored: StoredEvent, i) => {
          expect(stored.seq).toBe(head.seq + i + 1);
          expect(stored.prev).toBe(prev);
          expect(stored.batch_end).toBe(events.length > 1 ? head.seq + events.length : undefined);
          expect(stored.idempotency_key).toBe(idempotencyKey);
          expect(stored.actor).toBe(events[i]!.actor ?? actor);
          expect(stored.at).toBe(events[i]!.at ?? '2025-06-07T08:09:10.000Z');
          expect(lines[i]).toBe(canonicalEnvelope(stored as unknown as Record<string, unknown>, true));
          expect(lines[i]).toBe(serializeEvent(stored));
          expect(stored.hash).toBe(hashEvent(stored));
          prev = stored.hash;
        });
        // Ids strictly increase along the batch, after the log's last id.
        if (lastId !== undefined) expect(sealed.events[0]!.id > lastId).toBe(true);
        for (let i = 1; i < sealed.events.length; i++) expect(sealed.events[i]!.id > sealed.events[i - 1]!.id).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('hands back bytes the batch owns unless the caller borrows the sealing buffer', () => {
    const note = (text: string): ValidatedBatch => ({
      events: [{ type: 'note.recorded', stream: 'note/a', data: { text }, actor: undefined, at: undefined }],
      digest: '',
      idempotencyKey: undefined,
      expected: new Map(),
    });
    const head = { seq: 0, hash: '0'.repeat(64) };
    const ctx = { now: () => '2025-06-07T08:09:10.000Z', defaultActor: 'system' };
    const owned = sealBatch(note('first'), head, ctx);
    const ownedText = owned.bytes.toString('utf8');
    const borrowed = sealBatch(note('second'), head, { ...ctx, borrowBytes: true });
    const borrowedText = borrowed.bytes.toString('utf8');
    expect(borrowedText).toContain('"text":"second"');
    sealBatch(note('third'), head, ctx);
    // The owned bytes survive later seals; the borrowed ones view the buffer the next seal reused.
    expect(owned.bytes.toString('utf8')).toBe(ownedText);
    expect(borrowed.bytes.toString('utf8')).not.toBe(borrowedText);
  });
});
