import { expect } from 'vitest';
import { receiptState } from '../../../projections/coordination/signals.js';
import type { SendResult } from '../../coordination/send.js';
import { ErrorCode } from '../../errors.js';
import type { CasesOf } from './cases.js';
import { type CaseBody, idsOf } from './world.js';

/** The Idempotency cases of the A2A conformance suite (coordination.md §13). */
export const IDEMPOTENCY_CASES: CasesOf<'Idempotency', CaseBody> = {
  async I1(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    const first = await w.send(s2, { message: 'hi', to: ['Planck'], idempotency_key: 'k1' });
    const second = await w.send(s2, { message: 'hi', to: ['Planck'], idempotency_key: 'k1' });
    expect([first.deduplicated, second.deduplicated]).toEqual([false, true]);
    expect(second.signal).toStrictEqual(first.signal);
    expect(second.seq).toBe(first.seq);
    expect((await w.signals()).length).toBe(1);
    // Recipients are not resolved again: Planck is now another session, and the answer is still the stored signal.
    await w.end(s1);
    const s3 = await w.start();
    expect(s3.name).toBe('Planck');
    const head = await w.store.head();
    const third = await w.send(s2, { message: '  hi  ', to: ['Planck'], idempotency_key: 'k1' });
    expect([third.deduplicated, third.signal.signal_id, third.signal.recipients]).toEqual([true, first.signal.signal_id, [s1.id]]);
    expect(await w.store.head()).toEqual(head);
  },

  async I2(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    const stored = await w.send(s2, { message: 'hi', to: [s1.id], idempotency_key: 'k1' });
    const other = await w.send(s2, { message: 'other', to: [s1.id] });
    for (const changed of [{ message: 'different' }, { intent: 'PROPOSE' as const }, { reply_to: other.signal.signal_id }]) {
      const error = await w.refusedWithNothingAppended(ErrorCode.IDEMPOTENCY_CONFLICT, () =>
        w.send(s2, { message: 'hi', to: [s1.id], idempotency_key: 'k1', ...changed }),
      );
      expect(error.exitCode).toBe(4);
    }
    expect((await w.signals()).map((s) => s.data.signal_id)).toEqual([stored.signal.signal_id, other.signal.signal_id]);
  },

  async I3(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const a = await w.send(s2, { message: 'hi', to: [s1.id], idempotency_key: 'k1' });
    const b = await w.send(s0, { message: 'hi', to: [s1.id], idempotency_key: 'k1' });
    const c = await w.send(undefined, { message: 'hi', to: [s1.id], idempotency_key: 'k1' }, { envIdentity: 'ops:bot:1' });
    expect([a.deduplicated, b.deduplicated, c.deduplicated]).toEqual([false, false, false]);
    expect(new Set([a, b, c].map((s) => s.signal.signal_id)).size).toBe(3);
    expect([a, b, c].map((s) => s.signal.sender_identity)).toEqual([s2.identity, s0.identity, 'ops:bot:1']);
    expect((await w.signals()).length).toBe(3);
    expect(idsOf(await w.visible(s1.identity))).toEqual([a, b, c].map((s) => s.signal.signal_id));
  },

  async I4(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    const results: SendResult[] = [];
    for (let i = 0; i < 3; i++) results.push(await w.send(s2, { message: 'same words', to: [s1.id] }));
    expect(results.map((r) => r.deduplicated)).toEqual([false, false, false]);
    expect(new Set(results.map((r) => r.signal.signal_id)).size).toBe(3);
    expect((await w.signals()).map((s) => s.data.signal_id)).toEqual(results.map((r) => r.signal.signal_id));
    expect((await w.signals()).every((s) => !('idempotency_key' in s.data))).toBe(true);
  },

  async I5(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const d = await w.send(s0, { message: 'read me', to: [s1.id] });
    expect((await w.inbox(s1, {})).marked).toBe(1);
    expect((await w.inbox(s1, {})).marked).toBe(0);
    expect((await w.inbox(s1, { thread: d.signal.thread_id })).marked).toBe(0);
    await w.drain(s1.id);
    await w.watchOnce(s1.id);
    expect((await w.receipts()).map((r) => [r.data.signal_id, r.data.reader_identity, r.data.delivery_state])).toEqual([
      [d.signal.signal_id, s1.identity, 'delivered'],
    ]);
    // Duplicate delivered receipts (two processes marking at once) fold to one state, with no finding.
    const receipt = (await w.receipts())[0]!.data;
    await w.append([{ type: 'receipt.recorded', stream: `thread/${receipt.thread_id}`, data: { ...receipt, via: 'watch' } }]);
    const state = await w.state();
    expect(receiptState(state, d.signal.signal_id, s1.identity)).toBe('delivered');
    expect(state.findings).toEqual([]);
    expect((await w.inbox(s1, { all: true })).signals.map((s) => [s.read, s.delivery_state])).toEqual([[true, 'delivered']]);
  },
};
