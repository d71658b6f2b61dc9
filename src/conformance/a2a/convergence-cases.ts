import { expect } from 'vitest';
import type { ConvergenceView } from '../../../projections/coordination/convergence.js';
import { ErrorCode } from '../../errors.js';
import type { CasesOf } from './cases.js';
import { type CaseBody, NOW } from './world.js';

/** The Convergence cases of the A2A conformance suite (coordination.md §13). */
export const CONVERGENCE_CASES: CasesOf<'Convergence', CaseBody> = {
  async K1(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const p = await w.send(s0, { message: 'Approve boundary?', to: [s1.id, s2.id], intent: 'PROPOSE', requires_ack: true });
    await w.send(s1, { message: 'yes', reply_to: p.signal.signal_id, intent: 'AGREE' });
    await w.send(s2, { message: 'yes too', reply_to: p.signal.signal_id, intent: 'AGREE' });
    expect(await w.converged(p.signal.thread_id)).toStrictEqual({
      v: 1,
      type: 'convergence',
      generated_at: NOW,
      thread_id: p.signal.thread_id,
      state: 'converged',
      root_signal_id: p.signal.signal_id,
      proposal_signal_id: p.signal.signal_id,
      proposal_author: s0.identity,
      required: [s1.identity, s2.identity],
      agreed: [s1.identity, s2.identity],
      rejected: [],
      pending: [],
      other_votes: [],
    });
  },

  async K2(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start({ agent_identity: 'reviewer:docs:a' });
    const p = await w.send(s0, { message: 'Approve boundary?', to: [s1.id, s2.id], intent: 'PROPOSE' });
    const open0 = await w.converged(p.signal.thread_id);
    expect(open0).toMatchObject({ state: 'open', required: [s1.identity, 'reviewer:docs:a'], agreed: [], pending: [s1.identity, 'reviewer:docs:a'] });
    await w.send(s2, { message: 'yes', reply_to: p.signal.signal_id, intent: 'AGREE' });
    expect(await w.converged(p.signal.thread_id)).toMatchObject({ state: 'open', agreed: ['reviewer:docs:a'], pending: [s1.identity], rejected: [] });
    // INFO from the missing identity is no vote.
    await w.send(s1, { message: 'looking', reply_to: p.signal.signal_id });
    expect(await w.converged(p.signal.thread_id)).toMatchObject({ state: 'open', pending: [s1.identity] });
  },

  async K3(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const p = await w.send(s0, { message: 'Approve boundary?', to: [s1.id, s2.id], intent: 'PROPOSE' });
    await w.send(s1, { message: 'yes', reply_to: p.signal.signal_id, intent: 'AGREE' });
    await w.send(s2, { message: 'yes', reply_to: p.signal.signal_id, intent: 'AGREE' });
    expect((await w.converged(p.signal.thread_id)).state).toBe('converged');
    const counter = await w.send(s2, { message: 'what about X', reply_to: p.signal.signal_id, intent: 'COUNTER' });
    expect(await w.converged(p.signal.thread_id)).toMatchObject({
      state: 'open',
      proposal_signal_id: counter.signal.signal_id,
      proposal_author: s2.identity,
      required: [s0.identity, s1.identity],
      agreed: [],
      pending: [s0.identity, s1.identity],
    });
    await w.send(s0, { message: 'ok', reply_to: counter.signal.signal_id, intent: 'AGREE' });
    await w.send(s1, { message: 'ok', reply_to: counter.signal.signal_id, intent: 'AGREE' });
    expect(await w.converged(p.signal.thread_id)).toMatchObject({ state: 'converged', agreed: [s0.identity, s1.identity] });
  },

  async K4(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const p = await w.send(s0, { message: 'Approve boundary?', to: [s1.id, s2.id], intent: 'PROPOSE' });
    await w.send(s1, { message: 'no', reply_to: p.signal.signal_id, intent: 'REJECT' });
    expect(await w.converged(p.signal.thread_id)).toMatchObject({ state: 'rejected', rejected: [s1.identity], pending: [s2.identity] });
    // Even when every other required identity agrees.
    await w.send(s2, { message: 'yes', reply_to: p.signal.signal_id, intent: 'AGREE' });
    expect(await w.converged(p.signal.thread_id)).toMatchObject({ state: 'rejected', rejected: [s1.identity], agreed: [s2.identity], pending: [] });
    // A later AGREE by the rejecter is its latest vote.
    await w.send(s1, { message: 'convinced', reply_to: p.signal.signal_id, intent: 'AGREE' });
    expect(await w.converged(p.signal.thread_id)).toMatchObject({ state: 'converged', agreed: [s2.identity, s1.identity], rejected: [] });
  },

  async K5(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const b = await w.send(s0, { message: 'anyone?', intent: 'PROPOSE' });
    await w.send(s1, { message: '+1', reply_to: b.signal.signal_id, intent: 'AGREE' });
    await w.send(s2, { message: '+1', reply_to: b.signal.signal_id, intent: 'AGREE' });
    const view = await w.converged(b.signal.thread_id);
    expect(view).toMatchObject({ state: 'open', required: [], agreed: [], pending: [] });
    expect(view.other_votes.map((v) => [v.identity, v.intent])).toEqual([
      [s1.identity, 'AGREE'],
      [s2.identity, 'AGREE'],
    ]);
    // Even a later directed proposal in the thread does not change its broadcast root.
    await w.send(s0, { message: 'S1 then?', thread: b.signal.thread_id, to: [s1.id], intent: 'PROPOSE' });
    await w.send(s1, { message: 'yes', thread: b.signal.thread_id, intent: 'AGREE' });
    expect((await w.converged(b.signal.thread_id)).state).toBe('open');
    await w.refusedWithNothingAppended(ErrorCode.UNKNOWN_ID, () => w.converged('nope'));
  },

  async K6(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const p = await w.send(s0, { message: 'plan', to: [s1.id], intent: 'PROPOSE' });
    await w.send(s1, { message: 'yes to the first plan', reply_to: p.signal.signal_id, intent: 'AGREE' });
    const counter = await w.send(s0, { message: 'revised plan', reply_to: p.signal.signal_id, intent: 'COUNTER' });
    // S1's AGREE came before the current proposal: it no longer counts.
    expect(await w.converged(p.signal.thread_id)).toMatchObject({
      state: 'open',
      proposal_signal_id: counter.signal.signal_id,
      required: [s1.identity],
      pending: [s1.identity],
      agreed: [],
    });
    // A vote from an identity that is not required is listed but changes nothing.
    const outsider = await w.send(s2, { message: 'not asked', reply_to: p.signal.signal_id, intent: 'REJECT' });
    expect(await w.converged(p.signal.thread_id)).toMatchObject({
      state: 'open',
      pending: [s1.identity],
      rejected: [],
      other_votes: [{ identity: s2.identity, intent: 'REJECT', signal_id: outsider.signal.signal_id }],
    });
    await w.send(s1, { message: 'yes to the revision', reply_to: counter.signal.signal_id, intent: 'AGREE' });
    expect(await w.converged(p.signal.thread_id)).toMatchObject({ state: 'converged', agreed: [s1.identity] });
  },

  async K7(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    // Two threads with the same signals; reads happen in opposite orders, and only in the first thread before the votes.
    const p = await w.send(s0, { message: 'A?', to: [s1.id, s2.id], intent: 'PROPOSE', thread: 'k7-a' });
    const q = await w.send(s0, { message: 'B?', to: [s1.id, s2.id], intent: 'PROPOSE', thread: 'k7-b' });
    await w.inbox(s1, { thread: 'k7-a' });
    await w.inbox(s2, { thread: 'k7-a' });
    const views: ConvergenceView[] = [];
    for (const [thread, parent] of [
      ['k7-a', p],
      ['k7-b', q],
    ] as const) {
      await w.send(s1, { message: 'yes', reply_to: parent.signal.signal_id, intent: 'AGREE' });
      views.push(await w.converged(thread));
    }
    await w.drain(s2.id);
    await w.inbox(s2, { thread: 'k7-b' });
    for (const [thread, parent] of [
      ['k7-b', q],
      ['k7-a', p],
    ] as const) {
      await w.send(s2, { message: 'yes', reply_to: parent.signal.signal_id, intent: 'AGREE' });
      views.push(await w.converged(thread));
    }
    const shape = (v: ConvergenceView) => ({
      state: v.state,
      required: v.required,
      agreed: v.agreed,
      rejected: v.rejected,
      pending: v.pending,
      other_votes: v.other_votes,
    });
    expect(shape(views[0]!)).toEqual(shape(views[1]!));
    expect(shape(views[2]!)).toEqual(shape(views[3]!));
    expect(shape(views[2]!)).toMatchObject({ state: 'converged', agreed: [s1.identity, s2.identity] });
    // Receipts recorded afterwards — even a contrary 'rejected' one — change nothing.
    const before = await w.converged('k7-a');
    await w.append([
      {
        type: 'receipt.recorded',
        stream: 'thread/k7-a',
        data: {
          signal_id: p.signal.signal_id,
          reader_identity: s1.identity,
          read_at: NOW,
          delivery_state: 'rejected',
          thread_id: 'k7-a',
          session_id: null,
          via: 'hook',
          cause_signal_id: null,
        },
      },
    ]);
    await w.inbox(s1, { all: true });
    expect(await w.converged('k7-a')).toStrictEqual(before);
  },

  async K8(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const p = await w.send(s0, { message: 'P?', to: [s1.id], intent: 'PROPOSE', thread: 'k8-t' });
    const q = await w.send(s0, { message: 'Q?', to: [s1.id], intent: 'PROPOSE', thread: 'k8-x' });
    // S1 replies to P, but posts the vote in thread k8-x.
    const vote = await w.send(s1, { message: 'yes', reply_to: p.signal.signal_id, thread: 'k8-x', intent: 'AGREE' });
    expect(vote.signal.thread_id).toBe('k8-x');
    expect(await w.converged('k8-x')).toMatchObject({ state: 'converged', proposal_signal_id: q.signal.signal_id, agreed: [s1.identity] });
    expect(await w.converged('k8-t')).toMatchObject({ state: 'open', proposal_signal_id: p.signal.signal_id, pending: [s1.identity], agreed: [] });
    // And it promotes in k8-x only.
    expect(await w.stateOf(q.signal.signal_id, s1.identity)).toBe('acked');
    expect(await w.stateOf(p.signal.signal_id, s1.identity)).toBeNull();
  },
};
