import { expect } from 'vitest';
import { A2AReceiptV1 } from '../../../events/coordination/receipt.js';
import { receiptState } from '../../../projections/coordination/signals.js';
import type { CasesOf } from './cases.js';
import { type CaseBody, idsOf, NOW } from './world.js';

/** The Receipt cases of the A2A conformance suite (coordination.md §13). */
export const RECEIPT_CASES: CasesOf<'Receipt', CaseBody> = {
  async C1(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const b = await w.send(s0, { message: 'broadcast' });
    const first = await w.inbox(s1, {});
    expect([idsOf(first.signals), first.marked]).toEqual([[b.signal.signal_id], 1]);
    expect(first.signals[0]).toMatchObject({ read: false, delivery_state: null });
    const receipts = await w.receipts();
    expect(receipts).toHaveLength(1);
    expect(receipts[0]!.data).toStrictEqual({
      signal_id: b.signal.signal_id,
      reader_identity: s1.identity,
      read_at: NOW,
      delivery_state: 'delivered',
      thread_id: b.signal.thread_id,
      session_id: s1.id,
      via: 'inbox',
      cause_signal_id: null,
    });
    expect(A2AReceiptV1.safeParse({ signal_id: b.signal.signal_id, reader_identity: s1.identity, read_at: NOW, delivery_state: 'delivered' }).success).toBe(
      true,
    );
    expect(await w.stateOf(b.signal.signal_id, s1.identity)).toBe('delivered');
    expect(await w.stateOf(b.signal.signal_id, s2.identity)).toBeNull();
    expect(idsOf(await w.unread(s2.identity))).toEqual([b.signal.signal_id]);
  },

  async C2(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const d = await w.send(s0, { message: 'direct', to: [s1.id] });
    expect((await w.inbox(s1, {})).marked).toBe(1);
    const head = await w.store.head();
    const again = await w.inbox(s1, {});
    expect([again.signals, again.marked]).toEqual([[], 0]);
    const all = await w.inbox(s1, { all: true });
    expect(all.signals.map((s) => [s.signal_id, s.read, s.delivery_state])).toEqual([[d.signal.signal_id, true, 'delivered']]);
    expect(all.marked).toBe(0);
    // Nor do drain and watch read it again.
    expect((await w.drain(s1.id)).events).toEqual([]);
    expect(await w.watchOnce(s1.id)).toEqual([]);
    expect(await w.store.head()).toEqual(head);
  },

  async C3(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const p = await w.send(s0, { message: 'Approve?', to: [s1.id, s2.id], intent: 'PROPOSE', requires_ack: true });
    await w.inbox(s1, {});
    const agree = await w.send(s1, { message: 'yes', reply_to: p.signal.signal_id, intent: 'AGREE' });
    const reject = await w.send(s2, { message: 'no', reply_to: p.signal.signal_id, intent: 'REJECT' });
    expect([agree.promoted_receipts, reject.promoted_receipts]).toEqual([1, 1]);
    const receipts = await w.receipts();
    const acked = receipts.find((r) => r.data.delivery_state === 'acked')!;
    const rejected = receipts.find((r) => r.data.delivery_state === 'rejected')!;
    // Each promotion is in the vote's batch, right after it.
    expect(acked.seq).toBe(agree.seq + 1);
    expect(rejected.seq).toBe(reject.seq + 1);
    expect(acked.data).toMatchObject({
      signal_id: p.signal.signal_id,
      reader_identity: s1.identity,
      via: 'reply',
      cause_signal_id: agree.signal.signal_id,
      session_id: s1.id,
    });
    expect(rejected.data).toMatchObject({
      signal_id: p.signal.signal_id,
      reader_identity: s2.identity,
      via: 'reply',
      cause_signal_id: reject.signal.signal_id,
    });
    expect(await w.stateOf(p.signal.signal_id, s1.identity)).toBe('acked');
    expect(await w.stateOf(p.signal.signal_id, s2.identity)).toBe('rejected');
    // Same thread by --thread alone (no reply-to) counts too.
    const q = await w.send(s0, { message: 'And this?', to: [s1.id], intent: 'PROPOSE', thread: 'plan-q' });
    await w.send(s1, { message: 'yes', thread: 'plan-q', intent: 'AGREE' });
    expect(await w.stateOf(q.signal.signal_id, s1.identity)).toBe('acked');
    // INFO, PROPOSE and COUNTER never promote.
    const r = await w.send(s0, { message: 'Third?', to: [s2.id], intent: 'PROPOSE', thread: 'plan-r' });
    for (const intent of ['INFO', 'PROPOSE', 'COUNTER'] as const) {
      expect((await w.send(s2, { message: intent, thread: 'plan-r', intent, to: [s0.id] })).promoted_receipts).toBe(0);
    }
    expect(await w.stateOf(r.signal.signal_id, s2.identity)).toBeNull();
  },

  async C4(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const d = await w.send(s0, { message: 'never read', to: [s1.id], intent: 'PROPOSE' });
    expect(await w.receipts()).toEqual([]);
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBeNull();
    const vote = await w.send(s1, { message: 'yes', reply_to: d.signal.signal_id, intent: 'AGREE' });
    expect(vote.promoted_receipts).toBe(1);
    expect((await w.receipts()).map((r) => [r.data.signal_id, r.data.reader_identity, r.data.delivery_state, r.data.via])).toEqual([
      [d.signal.signal_id, s1.identity, 'acked', 'reply'],
    ]);
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('acked');
    // Nothing to deliver any more: it is read.
    expect(idsOf(await w.unread(s1.identity))).toEqual([]);
  },

  async C5(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const d = await w.send(s0, { message: 'for S1', to: [s1.id], intent: 'PROPOSE', requires_ack: true });
    await w.inbox(s1, {});
    const receiptsBefore = await w.receipts();
    for (const intent of ['AGREE', 'REJECT'] as const) {
      const vote = await w.send(s2, { message: `not asked: ${intent}`, thread: d.signal.thread_id, intent });
      expect(vote.promoted_receipts).toBe(0);
      const replyVote = await w.send(s2, { message: `not asked either: ${intent}`, reply_to: d.signal.signal_id, intent });
      expect(replyVote.promoted_receipts).toBe(0);
    }
    expect(await w.receipts()).toEqual(receiptsBefore);
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('delivered');
    expect(await w.stateOf(d.signal.signal_id, s2.identity)).toBeNull();
  },

  async C6(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const d = await w.send(s0, { message: 'for S1', to: [s1.id], intent: 'PROPOSE' });
    await w.inbox(s1, {});
    const agree = await w.send(s1, { message: 'agree, elsewhere', thread: 'other-2', intent: 'AGREE' });
    expect(agree.promoted_receipts).toBe(0);
    const reject = await w.send(s1, { message: 'reject, elsewhere', thread: 'other-3', intent: 'REJECT', to: [s0.id] });
    expect(reject.promoted_receipts).toBe(0);
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('delivered');
    expect((await w.receipts()).map((r) => r.data.delivery_state)).toEqual(['delivered']);
  },

  async C7(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const d = await w.send(s0, { message: 'for both', to: [s1.id, s2.id], intent: 'PROPOSE' });
    await w.inbox(s1, {});
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('delivered');
    expect(await w.stateOf(d.signal.signal_id, s2.identity)).toBeNull();
    expect(idsOf(await w.unread(s2.identity))).toEqual([d.signal.signal_id]);
    await w.send(s1, { message: 'yes', reply_to: d.signal.signal_id, intent: 'AGREE' });
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('acked');
    expect(await w.stateOf(d.signal.signal_id, s2.identity)).toBeNull();
    await w.send(s2, { message: 'no', reply_to: d.signal.signal_id, intent: 'REJECT' });
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('acked');
    expect(await w.stateOf(d.signal.signal_id, s2.identity)).toBe('rejected');
  },

  async C8(w) {
    const first = await w.start({ agent_identity: 'reviewer:docs:a' });
    const sender = await w.start();
    const second = await w.start({ agent_identity: 'reviewer:docs:a' });
    const d = await w.send(sender, { message: 'check', to: ['reviewer:docs:a'], intent: 'PROPOSE' });
    const e = await w.send(sender, { message: 'and this', to: [first.id] });
    expect(e.signal.recipients).toEqual(['reviewer:docs:a']);
    expect(idsOf((await w.inbox(first, {})).signals)).toEqual([d.signal.signal_id, e.signal.signal_id]);
    // The second terminal sees them as read, and no delivery path hands them over again.
    expect((await w.inbox(second, {})).signals).toEqual([]);
    expect((await w.inbox(second, { all: true })).signals.map((s) => [s.signal_id, s.read, s.delivery_state])).toEqual([
      [d.signal.signal_id, true, 'delivered'],
      [e.signal.signal_id, true, 'delivered'],
    ]);
    expect((await w.drain(second.id)).events).toEqual([]);
    expect(await w.watchOnce(second.id)).toEqual([]);
    // A vote from either session is the identity's vote.
    await w.send(second, { message: 'yes', reply_to: d.signal.signal_id, intent: 'AGREE' });
    expect((await w.inbox(first, { all: true })).signals.find((s) => s.signal_id === d.signal.signal_id)?.delivery_state).toBe('acked');
    expect(new Set((await w.receipts()).map((r) => r.data.reader_identity))).toEqual(new Set(['reviewer:docs:a']));
  },

  async C9(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const d = await w.send(s0, { message: 'Approve?', to: [s1.id], intent: 'PROPOSE', requires_ack: true });
    const thread = d.signal.thread_id;
    await w.send(s1, { message: 'yes', reply_to: d.signal.signal_id, intent: 'AGREE' });
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('acked');
    // A late delivered receipt (a slow terminal, a racing watcher) never downgrades it.
    const delivered = {
      signal_id: d.signal.signal_id,
      reader_identity: s1.identity,
      read_at: NOW,
      delivery_state: 'delivered',
      thread_id: thread,
      session_id: s1.id,
      via: 'watch',
      cause_signal_id: null,
    };
    await w.append([{ type: 'receipt.recorded', stream: `thread/${thread}`, data: delivered }]);
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('acked');
    expect((await w.inbox(s1, { all: true })).signals[0]).toMatchObject({ signal_id: d.signal.signal_id, delivery_state: 'acked', read: true });
    // A later REJECT overrides the AGREE; a later AGREE overrides that: the latest vote wins.
    await w.send(s1, { message: 'on second thought, no', reply_to: d.signal.signal_id, intent: 'REJECT' });
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('rejected');
    await w.append([{ type: 'receipt.recorded', stream: `thread/${thread}`, data: delivered }]);
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('rejected');
    await w.send(s1, { message: 'fine, yes', reply_to: d.signal.signal_id, intent: 'AGREE' });
    expect(await w.stateOf(d.signal.signal_id, s1.identity)).toBe('acked');
    // Re-voting the state already held appends no receipt.
    const again = await w.send(s1, { message: 'still yes', reply_to: d.signal.signal_id, intent: 'AGREE' });
    expect(again.promoted_receipts).toBe(0);
    expect((await w.receipts()).map((r) => r.data.delivery_state)).toEqual(['acked', 'delivered', 'rejected', 'delivered', 'acked']);
  },

  async C10(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const b = await w.send(s0, { message: 'broadcast' });
    const p = await w.send(s0, { message: 'proposal', to: [s1.id], intent: 'PROPOSE', thread: 'own-1' });
    // Reading, draining, watching as the sender records nothing for its own signals.
    expect((await w.inbox(s0, {})).marked).toBe(0);
    expect((await w.drain(s0.id)).events).toEqual([]);
    expect(await w.watchOnce(s0.id)).toEqual([]);
    // Voting in its own thread promotes nothing for its own signal.
    expect((await w.send(s0, { message: 'I agree with myself', thread: 'own-1', intent: 'AGREE' })).promoted_receipts).toBe(0);
    expect(await w.receipts()).toEqual([]);
    // A receipt another writer records for the sender is not folded (an integrity finding instead).
    await w.append([
      {
        type: 'receipt.recorded',
        stream: `thread/${b.signal.thread_id}`,
        data: {
          signal_id: b.signal.signal_id,
          reader_identity: s0.identity,
          read_at: NOW,
          delivery_state: 'delivered',
          thread_id: b.signal.thread_id,
          session_id: s0.id,
          via: 'inbox',
          cause_signal_id: null,
        },
      },
    ]);
    const state = await w.state();
    expect(receiptState(state, b.signal.signal_id, s0.identity)).toBeNull();
    expect(receiptState(state, p.signal.signal_id, s0.identity)).toBeNull();
    expect(state.findings.map((f) => f.reason)).toEqual([`receipt by the sender of ${b.signal.signal_id}`]);
  },
};
