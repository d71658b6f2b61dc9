import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../../events/envelope.js';
import { isBatonError } from '../../errors.js';
import type { AppendOptions, AppendResult } from '../../store/contract.js';
import { hashEvent } from '../../store/hash.js';
import { note, readAll, seqsOf, range, withoutHash, type Scenarios, type ConformanceFactory } from './harness.js';
import { ReferenceModel, MODEL_STREAMS, modelCommandArb, resolveCommand } from './reference-model.js';

/** Two fast-check properties: append against a reference model, and several handles appending at once. */
export function describeProperties({ factory }: Scenarios): void {
  describe('properties', () => {
    modelProperty(factory);
    concurrentAppendsProperty(factory);
  });
}

function modelProperty(factory: ConformanceFactory): void {
  it('behaves like the reference model for random sequences of appends', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(modelCommandArb, { minLength: 1, maxLength: 14 }), async (commands) => {
        const harness = await factory();
        try {
          const handles = [harness.store, await harness.openAnother()] as const;
          const model = new ReferenceModel();
          const sent: { events: NewEvent[]; options: AppendOptions }[] = [];
          for (const command of commands) {
            let call: { events: NewEvent[]; options: AppendOptions };
            if (command.kind === 'replay') {
              const earlier = sent[command.pick % Math.max(1, sent.length)];
              if (!earlier) continue;
              call = earlier;
            } else {
              call = resolveCommand(command, model);
            }
            sent.push(call);
            const predicted = model.predict(call.events, call.options);
            let result: AppendResult | undefined;
            let code: string | undefined;
            try {
              result = await handles[command.via].append(call.events, call.options);
            } catch (error) {
              if (!isBatonError(error)) throw error;
              code = error.code;
            }
            switch (predicted.kind) {
              case 'CONFLICT':
              case 'IDEMPOTENCY_CONFLICT':
                expect(code).toBe(predicted.kind);
                break;
              case 'deduplicated':
                expect(code).toBeUndefined();
                expect(result!.deduplicated).toBe(true);
                expect(result!.events).toEqual(predicted.events);
                break;
              case 'written': {
                expect(code).toBeUndefined();
                expect(result!.deduplicated).toBe(false);
                const stored = result!.events;
                expect(seqsOf(stored)).toEqual(predicted.seqs);
                expect(stored.map((e) => [e.type, e.stream, e.data])).toEqual(call.events.map((e) => [e.type, e.stream, e.data]));
                let prev = model.headHash;
                for (const e of stored) {
                  expect(e.prev).toBe(prev);
                  expect(e.hash).toBe(hashEvent(withoutHash(e)));
                  expect(e.idempotency_key).toBe(call.options.idempotencyKey);
                  prev = e.hash;
                }
                model.commit(stored, call.events, call.options.idempotencyKey);
                break;
              }
            }
            // Both handles must see the same log, whichever of them wrote.
            for (const handle of handles) {
              expect((await handle.head()).seq).toBe(model.headSeq);
              for (const stream of MODEL_STREAMS) expect(await handle.streamVersion(stream)).toBe(model.version(stream));
            }
          }
          for (const handle of handles) {
            expect(await readAll(handle)).toEqual(model.log);
            expect(await handle.head()).toEqual({ seq: model.headSeq, hash: model.headHash });
          }
          const ids = model.log.map((e) => e.id);
          expect(new Set(ids).size).toBe(ids.length);
          expect([...ids].sort()).toEqual(ids);
        } finally {
          await harness.cleanup();
        }
      }),
      { numRuns: 40 },
    );
  });
}

function concurrentAppendsProperty(factory: ConformanceFactory): void {
  it('keeps the log contiguous and complete when several handles append at once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 0, maxLength: 5 }), { minLength: 2, maxLength: 6 }), async (plans) => {
        const harness = await factory();
        try {
          const handles = await Promise.all(plans.map(() => harness.openAnother()));
          const results = await Promise.all(
            plans.flatMap((sizes, h) =>
              sizes.map((size, b) => handles[h]!.append(Array.from({ length: size }, (_, k) => note(`note/w${h}`, `w${h} b${b} e${k}`)))),
            ),
          );
          const total = plans.flat().reduce((sum, n) => sum + n, 0);
          const log = await readAll(harness.store);
          expect(seqsOf(log)).toEqual(range(1, total));
          expect(new Set(log.map((e) => e.id)).size).toBe(total);
          const ids = log.map((e) => e.id);
          expect([...ids].sort()).toEqual(ids);
          for (const result of results) {
            expect(result.deduplicated).toBe(false);
            // A batch is contiguous in the log, and stored exactly as append reported it.
            const first = result.events[0]!.seq;
            expect(seqsOf(result.events)).toEqual(range(first, first + result.events.length - 1));
            for (const event of result.events) expect(log[event.seq - 1]).toEqual(event);
          }
          plans.forEach((sizes, h) => {
            const texts = log.filter((e) => e.stream === `note/w${h}`).map((e) => e.data['text']);
            expect(texts.length).toBe(sizes.reduce((sum, n) => sum + n, 0));
          });
          for (let h = 0; h < plans.length; h++) {
            expect(await harness.store.streamVersion(`note/w${h}`)).toBe(plans[h]!.reduce((sum, n) => sum + n, 0));
          }
          expect(await harness.store.verify()).toEqual({ ok: true, head_seq: total, checked: total, first_bad: null });
        } finally {
          await harness.cleanup();
        }
      }),
      { numRuns: 30 },
    );
  });
}
