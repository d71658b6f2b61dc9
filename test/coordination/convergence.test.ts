import { afterAll, describe, expect, it } from 'vitest';
import { ConvergenceEnvelope, envelope, InboxEnvelope, threeSessions, workspace } from '../helpers/coordination.js';
import { errorEnvelopeOf } from '../helpers/cli.js';
import { removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

describe('convergence (coordination.md §15, 29–31)', () => {
  it('29–30: open until all agree, converged, reopened by a COUNTER, rejected by a required REJECT', async () => {
    const { ws, s0, s1, s2 } = await threeSessions();
    const p = await ws.setUpSignal('Approve boundary?', { to: [s1, s2], intent: 'PROPOSE', requires_ack: true }, { as: s0 });
    await ws.setUpSignal('yes', { reply_to: p.signal_id, intent: 'AGREE' }, { as: s1 });
    const open = await ws.run(['mem', 'converged', '--thread', p.thread_id]);
    expect(open.code).toBe(6);
    expect(envelope(ConvergenceEnvelope, open)).toMatchObject({
      type: 'convergence',
      state: 'open',
      pending: [s2],
      agreed: [s1],
      required: [s1, s2],
      proposal_author: s0,
    });
    await ws.setUpSignal('yes too', { reply_to: p.signal_id, intent: 'AGREE' }, { as: s2 });
    const done = await ws.run(['mem', 'converged', '--thread', p.thread_id]);
    expect(done.code).toBe(0);
    expect(envelope(ConvergenceEnvelope, done)).toMatchObject({ state: 'converged', agreed: [s1, s2], pending: [] });

    const counter = await ws.setUpSignal('what about X', { reply_to: p.signal_id, intent: 'COUNTER' }, { as: s2 });
    const reopened = await ws.run(['mem', 'converged', '--thread', p.thread_id]);
    expect(reopened.code).toBe(6);
    expect(envelope(ConvergenceEnvelope, reopened)).toMatchObject({
      state: 'open',
      required: [s0, s1],
      proposal_signal_id: counter.signal_id,
      proposal_author: s2,
    });
    await ws.setUpSignal('no', { reply_to: p.signal_id, intent: 'REJECT' }, { as: s1 });
    const rejected = await ws.run(['mem', 'converged', '--thread', p.thread_id]);
    expect(rejected.code).toBe(6);
    expect(envelope(ConvergenceEnvelope, rejected)).toMatchObject({ state: 'rejected', rejected: [s1] });
  });

  it('31: a broadcast root never converges; an unknown thread is UNKNOWN_ID', async () => {
    const { ws, s0, s1, s2 } = await threeSessions();
    const b = await ws.setUpSignal('anyone?', { intent: 'PROPOSE' }, { as: s0 });
    await ws.setUpSignal('+1', { reply_to: b.signal_id, intent: 'AGREE' }, { as: s1 });
    await ws.setUpSignal('+1', { reply_to: b.signal_id, intent: 'AGREE' }, { as: s2 });
    const r = await ws.run(['mem', 'converged', '--thread', b.thread_id]);
    expect(r.code).toBe(6);
    const view = envelope(ConvergenceEnvelope, r);
    expect(view).toMatchObject({ state: 'open', required: [] });
    expect(view.other_votes.map((v) => v.identity)).toEqual([s1, s2]);
    const nope = await ws.run(['mem', 'converged', '--thread', 'nope']);
    expect(nope.code).toBe(2);
    expect(errorEnvelopeOf(nope)).toMatchObject({ code: 'UNKNOWN_ID', message: 'Thread nope not found' });
  });

  it('K6: votes before the proposal and from non-required identities change nothing', async () => {
    const { ws, s0, s1, s2 } = await threeSessions();
    await ws.setUpSignal('early yes', { thread: 'plan-1', intent: 'AGREE' }, { as: s1 });
    const p = await ws.setUpSignal('plan', { to: [s1], thread: 'plan-1', intent: 'PROPOSE' }, { as: s0 });
    // The root of plan-1 is the early vote (lowest seq, broadcast): never converges.
    const r = await ws.run(['mem', 'converged', '--thread', p.thread_id]);
    expect(r.code).toBe(6);
    expect(envelope(ConvergenceEnvelope, r).state).toBe('open');
    const q = await ws.setUpSignal('plan B', { to: [s1], intent: 'PROPOSE' }, { as: s0 });
    await ws.setUpSignal('not asked', { reply_to: q.signal_id, intent: 'REJECT' }, { as: s2 });
    const k = await ws.run(['mem', 'converged', '--thread', q.thread_id]);
    expect(envelope(ConvergenceEnvelope, k)).toMatchObject({ state: 'open', pending: [s1], rejected: [], other_votes: [{ identity: s2, intent: 'REJECT' }] });
    await ws.setUpSignal('yes', { reply_to: q.signal_id, intent: 'AGREE' }, { as: s1 });
    expect((await ws.run(['mem', 'converged', '--thread', q.thread_id])).code).toBe(0);
  });

  it('48: replay --view convergence as of a past position', async () => {
    const { ws, s0, s1 } = await threeSessions();
    const p = await ws.setUpSignal('plan', { to: [s1], intent: 'PROPOSE' }, { as: s0 });
    const before = ws.head();
    await ws.setUpSignal('yes', { reply_to: p.signal_id, intent: 'AGREE' }, { as: s1 });
    const past = await ws.okAs(ConvergenceEnvelope, ['replay', '--view', 'convergence', '--thread', p.thread_id, '--to', String(before)]);
    expect(past.state).toBe('open');
    const now = await ws.okAs(ConvergenceEnvelope, ['replay', '--view', 'convergence', '--thread', p.thread_id, '--to', String(ws.head())]);
    expect(now.state).toBe('converged');
    const inbox = await ws.okAs(InboxEnvelope, ['replay', '--view', 'inbox', '--for', 'Planck', '--to', String(before)]);
    expect(inbox.signals.map((s) => s.signal_id)).toEqual([p.signal_id]);
  });
});

describe('idempotency (coordination.md §15, 32)', () => {
  it('32: same key and content dedupes; different content conflicts; another sender appends', async () => {
    const { ws, s0, s1, s2 } = await threeSessions();
    const a = await ws.send('hi', ['--to', s1, '--idempotency-key', 'k1'], { as: s2 });
    const b = await ws.send('hi', ['--to', s1, '--idempotency-key', 'k1'], { as: s2 });
    expect(b.signal.signal_id).toBe(a.signal.signal_id);
    expect([a.deduplicated, b.deduplicated]).toEqual([false, true]);
    expect(ws.events().filter((e) => e.type === 'signal.sent')).toHaveLength(1);
    const head = ws.head();
    const c = await ws.run(['mem', 'signal', 'other', '--to', s1, '--idempotency-key', 'k1'], { as: s2 });
    expect(c.code).toBe(4);
    expect(errorEnvelopeOf(c).code).toBe('IDEMPOTENCY_CONFLICT');
    expect(ws.head()).toBe(head);
    const d = await ws.send('hi', ['--to', s1, '--idempotency-key', 'k1'], { as: s0 });
    expect(d.signal.signal_id).not.toBe(a.signal.signal_id);
    expect(d.deduplicated).toBe(false);
  });

  it('X4: concurrent sends with one key store exactly one signal, all print its id', async () => {
    const { ws, s1, s2 } = await threeSessions();
    const runs = await Promise.all(Array.from({ length: 5 }, () => ws.send('race', ['--to', s1, '--idempotency-key', 'k-race'], { as: s2 })));
    expect(new Set(runs.map((r) => r.signal.signal_id)).size).toBe(1);
    expect(ws.events().filter((e) => e.type === 'signal.sent')).toHaveLength(1);
  });

  it('X1/X3: concurrent sends all land with contiguous seq; concurrent marking folds to one delivered', async () => {
    const { ws, s1, s2 } = await threeSessions();
    await Promise.all(Array.from({ length: 6 }, (_, i) => ws.ok(['mem', 'signal', `n${i}`, '--to', s1], { as: s2 })));
    const events = ws.events();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'signal.sent')).toHaveLength(6);
    await Promise.all([ws.ok(['mem', 'inbox'], { as: s1 }), ws.ok(['mem', 'inbox'], { as: s1 })]);
    const all = await ws.inbox(['--all'], { as: s1 });
    expect(all.signals).toHaveLength(6);
    expect(all.signals.every((s) => s.delivery_state === 'delivered')).toBe(true);
    expect((await ws.inbox([], { as: s1 })).signals).toEqual([]);
  });
});

describe('profiles (coordination.md §15, 33–34)', () => {
  it('33: hosted fills the workspace id, refuses another, and hides other tenants', async () => {
    const ws = await workspace('display_name_pool: [Planck, Noether, Curie, Dirac]\na2a: {profile: hosted, workspace_id: ws-1}\n');
    const s1 = await ws.setUpSession();
    const s2 = await ws.setUpSession();
    expect((await ws.signal('hi', ['--to', s1], { as: s2 })).workspace_id).toBe('ws-1');
    const head = ws.head();
    const other = await ws.run(['mem', 'signal', 'hi', '--to', s1, '--workspace-id', 'ws-2'], { as: s2 });
    expect(other.code).toBe(2);
    expect(ws.head()).toBe(head);
    const foreign = {
      schema_version: 'A2A.V1',
      signal_id: 'sig-0000ffff',
      sender_identity: s2,
      recipients: [s1],
      target_agent: s1,
      workspace_id: 'ws-2',
      thread_id: 'th-2',
      intent: 'INFO',
      interrupt_class: 'priority',
      requires_ack: false,
      message: 'other tenant',
      origin: 'remote',
      created_at: '2026-04-17T10:00:00.000Z',
      sender_session_id: null,
    };
    await ws.setUpEvents([{ type: 'signal.sent', stream: 'thread/th-2', data: foreign }]);
    const inbox = await ws.inbox(['--for', s1, '--no-mark']);
    expect(inbox.signals.map((s) => s.signal_id)).not.toContain('sig-0000ffff');
    expect(inbox.signals).toHaveLength(1);
  });

  it('34: hosted without a workspace id fails every mem command naming a2a.workspace_id; local records none', async () => {
    const ws = await workspace('display_name_pool: [Planck, Noether, Curie, Dirac]\n');
    const s1 = await ws.setUpSession();
    const s2 = await ws.setUpSession();
    const sig = await ws.signal('hi', ['--to', s1], { as: s2 });
    expect('workspace_id' in sig).toBe(false);
    ws.writeConfig('a2a: {profile: hosted}\n');
    const head = ws.head();
    for (const args of [
      ['mem', 'roster'],
      ['mem', 'inbox'],
      ['mem', 'signal', 'x'],
      ['mem', 'converged', '--thread', sig.thread_id],
      ['mem', 'watch', '--once'],
    ]) {
      const r = await ws.run(args, { as: s2 });
      expect(r.code, args.join(' ')).toBe(2);
      expect(errorEnvelopeOf(r).message).toContain('a2a.workspace_id');
    }
    expect(ws.head()).toBe(head);
  });
});
