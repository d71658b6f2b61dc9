import { expect } from 'vitest';
import { z } from 'zod';
import { CoordinationErrorCode } from '../../coordination/errors.js';
import type { InboxInput } from '../../coordination/inbox.js';
import { signalGate } from '../../coordination/prep.js';
import type { SendResult } from '../../coordination/send.js';
import { ErrorCode } from '../../errors.js';
import { refusal } from '../async-checks.js';
import type { CasesOf } from './cases.js';
import { type CaseBody, idsOf, NOW } from './world.js';

/** The Visibility cases of the A2A conformance suite (coordination.md §13). */
export const VISIBILITY_CASES: CasesOf<'Visibility', CaseBody> = {
  async V1(w) {
    const s0 = await w.start();
    const s1 = await w.start({ agent_identity: 'reviewer:docs:a' });
    const s2 = await w.start();
    const b = await w.send(s0, { message: 'lane freeze', lane: 'L1' });
    expect(b.signal.recipients).toEqual([]);
    expect(idsOf(await w.visible(s1.identity))).toEqual([b.signal.signal_id]);
    expect(idsOf(await w.visible(s2.identity))).toEqual([b.signal.signal_id]);
    // A known identity that has no live session sees broadcasts too.
    await w.end(s1);
    expect(idsOf(await w.visible('reviewer:docs:a'))).toEqual([b.signal.signal_id]);
    expect(idsOf(await w.visible(s0.identity))).toEqual([]);
  },

  async V2(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const s3 = await w.start({ agent_identity: 'reviewer:docs:a' });
    const d = await w.send(s0, { message: 'for S1 and the reviewer', to: [s1.id, 'reviewer:docs:a'] });
    expect(idsOf(await w.visible(s1.identity))).toEqual([d.signal.signal_id]);
    expect(idsOf(await w.visible(s3.identity))).toEqual([d.signal.signal_id]);
    expect(idsOf(await w.visible(s2.identity))).toEqual([]);
    expect(idsOf(await w.visible(s0.identity))).toEqual([]);
    // Delivery paths agree: drain and watch hand it only to recipients.
    expect(idsOf((await w.drain(s2.id)).events.map((e) => e.signal))).toEqual([]);
    expect(idsOf((await w.watchOnce(s2.id)).map((e) => e.signal))).toEqual([]);
    expect(idsOf((await w.watchOnce(s1.id)).map((e) => e.signal))).toEqual([d.signal.signal_id]);
  },

  async V3(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    await w.send(s0, { message: 'broadcast by S0' });
    const direct = await w.send(s0, { message: 'to S1', to: [s1.id], requires_ack: true });
    const answer = await w.send(s1, { message: 'answer to S0', reply_to: direct.signal.signal_id });
    expect(answer.signal.recipients).toEqual([s0.identity]);
    // The sender's own signals are never listed, read or not, and never marked; what others sent it is.
    expect(idsOf(await w.visible(s0.identity))).toEqual([answer.signal.signal_id]);
    expect(idsOf(await w.unread(s0.identity))).toEqual([answer.signal.signal_id]);
    const own = await w.inbox(s0, { all: true });
    expect(idsOf(own.signals)).toEqual([answer.signal.signal_id]);
    expect(own.marked).toBe(1);
    expect((await w.receipts()).map((r) => [r.data.signal_id, r.data.reader_identity])).toEqual([[answer.signal.signal_id, s0.identity]]);
    expect((await w.drain(s0.id)).events).toEqual([]);
    expect(await w.watchOnce(s0.id)).toEqual([]);
    // Observer mode lists them all, the sender's included.
    expect((await w.inbox(undefined, {})).signals.length).toBe(3);
  },

  async V4(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const b1 = await w.send(s0, { message: 'b1' });
    await w.send(s0, { message: 'to S2', to: [s2.id] });
    const d1 = await w.send(s2, { message: 'to S1', to: [s1.id] });
    const b2 = await w.send(s2, { message: 'b2' });
    await w.send(s1, { message: 'own broadcast' });
    const d3 = await w.send(s0, { message: 'to S1 and S2', to: [s2.id, s1.id] });
    const expected = [b1, d1, b2, d3].map((s) => s.signal.signal_id);
    const inbox = await w.inbox(s1, { mark: false });
    expect(idsOf(inbox.signals)).toEqual(expected);
    expect(inbox.signals.map((s) => s.seq)).toEqual([b1.seq, d1.seq, b2.seq, d3.seq]);
    expect([...inbox.signals.map((s) => s.seq)].sort((a, b) => a - b)).toEqual(inbox.signals.map((s) => s.seq));
    // The watcher's catch-up set is the same list, in the same order.
    expect(idsOf((await w.watchOnce(s1.id)).map((d) => d.signal))).toEqual(expected);
  },

  async V5(w) {
    await w.withWus('WU-1', 'WU-2');
    const s0 = await w.start();
    const s1 = await w.start();
    const a = await w.send(s0, { message: 'a', to: [s1.id], wu: 'WU-1', thread: 't1' });
    const b = await w.send(s0, { message: 'b', to: [s1.id], wu: 'WU-2', intent: 'PROPOSE', thread: 't2' });
    const c = await w.send(s0, { message: 'c', to: [s1.id], intent: 'PROPOSE', thread: 't1' });
    const d = await w.send(s0, { message: 'd', wu: 'WU-1' });
    const all = idsOf(await w.visible(s1.identity));
    expect(all).toEqual([a, b, c, d].map((s) => s.signal.signal_id));
    const cases: [Omit<InboxInput, 'for' | 'mark' | 'all'>, SendResult[]][] = [
      [{ wu: 'WU-1' }, [a, d]],
      [{ wu: 'WU-2' }, [b]],
      [{ thread: 't1' }, [a, c]],
      [{ thread: 'nope' }, []],
      [{ intent: ['PROPOSE'] }, [b, c]],
      [{ intent: ['PROPOSE', 'AGREE'] }, [b, c]],
      [{ intent: ['INFO'] }, [a, d]],
      [{ wu: 'WU-1', intent: ['INFO'] }, [a, d]],
      [{ thread: 't1', intent: ['PROPOSE'] }, [c]],
      [{ wu: 'WU-2', thread: 't1' }, []],
    ];
    for (const [filters, expected] of cases) {
      const listed = idsOf(await w.visible(s1.identity, filters));
      expect(listed, JSON.stringify(filters)).toEqual(expected.map((s) => s.signal.signal_id));
      // Only narrowing: a subsequence of the unfiltered list.
      expect(all.filter((id) => listed.includes(id))).toEqual(listed);
    }
    // Marking with a filter marks only what the filter lists.
    const marked = await w.inbox(s1, { wu: 'WU-1' });
    expect(marked.marked).toBe(2);
    expect(idsOf(await w.unread(s1.identity))).toEqual([b, c].map((s) => s.signal.signal_id));
  },

  async V6(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const b = await w.send(s0, { message: 'broadcast' });
    const d = await w.send(s0, { message: 'direct', to: [s1.id] });
    const before = await w.store.head();
    const noMark = await w.inbox(s1, { mark: false });
    expect([idsOf(noMark.signals), noMark.marked]).toEqual([[b.signal.signal_id, d.signal.signal_id], 0]);
    // Observer mode: no session, no identity, no --for — every signal, never marked.
    const observer = await w.inbox(undefined, {});
    expect(observer.reader_identity).toBeNull();
    expect([idsOf(observer.signals), observer.marked]).toEqual([[b.signal.signal_id, d.signal.signal_id], 0]);
    // A session reading for another identity never marks that identity's signals.
    const forOther = await w.inbox(s2, { for: s1.id });
    expect([idsOf(forOther.signals), forOther.marked]).toEqual([[b.signal.signal_id, d.signal.signal_id], 0]);
    expect(await w.store.head()).toEqual(before);
    expect(idsOf(await w.unread(s1.identity))).toEqual([b.signal.signal_id, d.signal.signal_id]);
  },

  async V7(w) {
    await w.withWus('WU-1');
    const s0 = await w.start();
    const s1 = await w.start();
    await w.append([
      {
        type: 'wu.claimed',
        stream: 'wu/WU-1',
        data: { wu_id: 'WU-1', session_id: s1.id, mode: 'worktree', worktree_path: null, branch: null, takeover_from: null },
      },
    ]);
    const own = await w.send(s0, { message: 'ours', to: [s1.id], wu: 'WU-1' });
    const foreign = { workspace_id: 'ws-other', sender_identity: s0.identity, created_at: NOW };
    await w.append([
      {
        type: 'signal.sent',
        stream: 'thread/t-foreign-1',
        data: w.rawSignal({
          ...foreign,
          signal_id: 'sig-0000f0a1',
          thread_id: 't-foreign-1',
          recipients: [s1.identity],
          target_agent: s1.identity,
          interrupt_class: 'interrupt',
          wu_id: 'WU-1',
        }),
      },
      { type: 'signal.sent', stream: 'thread/t-foreign-2', data: w.rawSignal({ ...foreign, signal_id: 'sig-0000f0a2', thread_id: 't-foreign-2' }) },
    ]);
    const foreignIds = ['sig-0000f0a1', 'sig-0000f0a2'];
    if (w.hosted) {
      // Hosted: another tenant's signals are invisible to every read path.
      expect(idsOf(await w.visible(s1.identity))).toEqual([own.signal.signal_id]);
      expect(idsOf((await w.inbox(undefined, {})).signals)).toEqual([own.signal.signal_id]);
      await w.refusedWithNothingAppended(ErrorCode.UNKNOWN_ID, () => w.converged('t-foreign-1'));
      const gate = await refusal(signalGate(w.env(s1), 'WU-1', { allow: false, reason: undefined }));
      expect(gate.code).toBe(CoordinationErrorCode.UNREAD_DIRECTED_SIGNALS);
      expect(gate.details?.['signals']).toEqual([{ signal_id: own.signal.signal_id, sender_identity: s0.identity, intent: 'INFO', requires_ack: false }]);
      expect(idsOf((await w.drain(s1.id)).events.map((e) => e.signal))).toEqual([own.signal.signal_id]);
      expect(idsOf((await w.watchOnce(s1.id)).map((e) => e.signal))).toEqual([]);
      expect((await w.receipts()).map((r) => r.data.signal_id)).toEqual([own.signal.signal_id]);
    } else {
      // Local: every signal is read, whatever workspace id it carries.
      expect(idsOf(await w.visible(s1.identity))).toEqual([own.signal.signal_id, ...foreignIds]);
      expect(idsOf((await w.inbox(undefined, {})).signals)).toEqual([own.signal.signal_id, ...foreignIds]);
      expect((await w.converged('t-foreign-1')).root_signal_id).toBe('sig-0000f0a1');
      const gate = await refusal(signalGate(w.env(s1), 'WU-1', { allow: false, reason: undefined }));
      expect(idsOf(z.array(z.object({ signal_id: z.string() })).parse(gate.details?.['signals']))).toEqual([own.signal.signal_id, 'sig-0000f0a1']);
      expect(idsOf((await w.drain(s1.id)).events.map((e) => e.signal))).toEqual(['sig-0000f0a1', own.signal.signal_id]);
      expect(idsOf((await w.watchOnce(s1.id)).map((e) => e.signal))).toEqual(['sig-0000f0a2']);
    }
  },
};
