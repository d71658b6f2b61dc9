import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { oneSession, sharedWorkspace, threeSessions, twoSessions, workspace, type InboxEnvelope, type Workspace } from '../helpers/coordination.js';
import { errorEnvelopeOf } from '../helpers/cli.js';
import { removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

function pendingFiles(ws: Workspace): string[] {
  const dir = join(ws.dir, '.baton', 'hooks', 'pending');
  return existsSync(dir) ? readdirSync(dir) : [];
}

async function expectRefused(ws: Workspace, args: string[], as: string | undefined, code: string | null): Promise<void> {
  const head = ws.head();
  const r = await ws.run(['mem', 'signal', ...args], as !== undefined ? { as } : {});
  expect(r.code, args.join(' ')).toBe(code === 'IDEMPOTENCY_CONFLICT' ? 4 : 2);
  if (code !== null) expect(errorEnvelopeOf(r).code).toBe(code);
  expect(ws.head(), 'nothing appended').toBe(head);
}

/** s1 with agent identity reviewer:docs:a, then s2 (built once, copied for each test). */
const reviewerAndPlain = sharedWorkspace(async (ws) => {
  const s1 = await ws.setUpSession({ agent_identity: 'reviewer:docs:a' });
  return { s1, s2: await ws.setUpSession() };
});

/** INIT-1 with WU-1, then two sessions; s2 is the second (built once, copied for each test). */
const wuThenTwoSessions = sharedWorkspace(async (ws) => {
  await ws.withWus('WU-1');
  await ws.setUpSession();
  return { s2: await ws.setUpSession() };
});

describe('routing (coordination.md §15, 11–19)', () => {
  it('11: a display name is resolved to the session id and never persisted', async () => {
    const { ws, s1, s2 } = await twoSessions();
    const sig = await ws.signal('review please', ['--to', 'Planck'], { as: s2 });
    expect(sig.recipients).toEqual([s1]);
    expect(sig.target_agent).toBe(s1);
    const stored = ws.events().find((e) => e.type === 'signal.sent')!;
    expect(JSON.stringify(stored)).not.toContain('Planck');
    expect(stored.stream).toBe(`thread/${sig.thread_id}`);
    expect(stored.data['sender_session_id']).toBe(s2);
  });

  it('12: a session with an agent identity is addressed by it, by name or by id', async () => {
    const { ws, s1, s2 } = await reviewerAndPlain();
    expect((await ws.signal('a', ['--to', 'Planck'], { as: s2 })).recipients).toEqual(['reviewer:docs:a']);
    expect((await ws.signal('b', ['--to', s1], { as: s2 })).recipients).toEqual(['reviewer:docs:a']);
  });

  it('13: an unknown recipient exits 2, appends nothing, enqueues nothing', async () => {
    const ws = await workspace();
    await ws.setUpSession({ client: 'claude-code' });
    const s2 = await ws.setUpSession();
    await expectRefused(ws, ['hi', '--to', 'Nobody'], s2, 'UNKNOWN_RECIPIENT');
    expect(pendingFiles(ws)).toEqual([]);
  });

  it('14: duplicates collapse to one recipient', async () => {
    const { ws, s1, s2 } = await twoSessions();
    expect((await ws.signal('x', ['--to', `Planck,Planck,${s1}`], { as: s2 })).recipients).toEqual([s1]);
  });

  it('15: a known identity is addressable offline; a display name is not', async () => {
    const { ws, s1, s2 } = await reviewerAndPlain();
    await ws.ok(['session', 'end', s1]);
    expect((await ws.signal('later', ['--to', 'reviewer:docs:a'], { as: s2 })).recipients).toEqual(['reviewer:docs:a']);
    await expectRefused(ws, ['x', '--to', 'Planck'], s2, 'UNKNOWN_RECIPIENT');
  });

  it('15b (R7): several identities in one --to each resolve, in first-seen order', async () => {
    const ws = await workspace();
    const a = await ws.setUpSession({ agent_identity: 'x:1' });
    const b = await ws.setUpSession({ agent_identity: 'x:2' });
    expect(a).not.toBe(b);
    const s3 = await ws.setUpSession();
    expect((await ws.signal('ok', ['--to', 'x:1,x:2'], { as: s3 })).recipients).toEqual(['x:1', 'x:2']);
  });

  it('16: addressing yourself is SELF_ADDRESSED', async () => {
    const { ws, s1 } = await oneSession();
    await expectRefused(ws, ['me', '--to', 'Planck'], s1, 'SELF_ADDRESSED');
  });

  it('17: a broadcast has no recipients, no target_agent, and the defaults', async () => {
    const { ws, s2 } = await wuThenTwoSessions();
    const sig = await ws.signal('lane freeze', ['--lane', 'L1'], { as: s2 });
    expect(sig).toMatchObject({
      recipients: [],
      intent: 'INFO',
      interrupt_class: 'advisory',
      requires_ack: false,
      schema_version: 'A2A.V1',
      origin: 'local',
      sender_identity: s2,
      lane: 'L1',
    });
    expect('target_agent' in sig).toBe(false);
    expect(sig.thread_id).toMatch(/^thread-/);
    expect(sig.signal_id).toMatch(/^sig-/);
  });

  it('18: interrupt class defaults and flag', async () => {
    const { ws, s2 } = await twoSessions();
    expect((await ws.signal('a', ['--to', 'Planck'], { as: s2 })).interrupt_class).toBe('priority');
    expect((await ws.signal('b', ['--to', 'Planck', '--interrupt-class', 'interrupt'], { as: s2 })).interrupt_class).toBe('interrupt');
    await expectRefused(ws, ['c', '--to', 'Planck', '--interrupt-class', 'loud'], s2, 'INVALID_INPUT');
  });

  it('19: bad input exits 2 and appends nothing', async () => {
    const { ws, s2 } = await wuThenTwoSessions();
    await expectRefused(ws, ['   '], s2, 'INVALID_INPUT');
    await expectRefused(ws, ['x', '--intent', 'MAYBE'], s2, 'INVALID_INPUT');
    await expectRefused(ws, ['x', '--requires-ack'], s2, 'INVALID_INPUT');
    await expectRefused(ws, ['x', '--intent', 'AGREE'], s2, 'INVALID_INPUT');
    await expectRefused(ws, ['x', '--wu', 'WU-abc'], s2, 'INVALID_INPUT');
    await expectRefused(ws, ['x', '--wu', 'WU-77'], s2, 'UNKNOWN_ID');
    await expectRefused(ws, ['x'.repeat(16_385)], s2, 'INVALID_INPUT');
    await expectRefused(ws, ['x', '--lane', '  '], s2, 'INVALID_INPUT');
    await expectRefused(ws, ['x', '--thread', '../etc'], s2, 'INVALID_INPUT');
    await expectRefused(ws, ['x', '--reply-to', 'not-a-sig'], s2, 'INVALID_INPUT');
    await expectRefused(ws, ['x', '--initiative', 'INIT-9'], s2, 'UNKNOWN_ID');
    await expectRefused(ws, ['x'], 'session_000000000000000000000000', 'UNKNOWN_ID');
    const bad = await ws.run(['mem', 'signal', 'x', '--intent', 'MAYBE'], { as: s2 });
    expect(errorEnvelopeOf(bad).message).toContain('--intent');
  });

  it('19b: a message of exactly 16,384 characters is accepted and stored trimmed', async () => {
    const { ws, s1 } = await oneSession();
    const sig = await ws.signal(`  ${'y'.repeat(16_384)}  `, [], { as: s1 });
    expect(sig.message).toHaveLength(16_384);
  });

  it('19c: an ended acting session cannot send', async () => {
    const { ws, s1 } = await oneSession();
    await ws.ok(['session', 'end', s1]);
    await expectRefused(ws, ['x'], s1, 'SESSION_ENDED');
  });
});

describe('threads, inbox, receipts (coordination.md §15, 20–28)', () => {
  it('20: a reply inherits thread and axes and answers the parent sender', async () => {
    const { ws, s1, s2 } = await threeSessions();
    await ws.withWus('WU-1');
    const d = await ws.signal('proposal', ['--to', 'Planck', '--wu', 'WU-1', '--intent', 'PROPOSE'], { as: s2 });
    expect(d.initiative).toBe('INIT-1');
    const reply = await ws.signal('ok', ['--reply-to', d.signal_id, '--intent', 'AGREE'], { as: s1 });
    expect(reply).toMatchObject({
      thread_id: d.thread_id,
      reply_to: d.signal_id,
      recipients: [s2],
      wu_id: 'WU-1',
      initiative: 'INIT-1',
      interrupt_class: 'priority',
    });
  });

  it('21: an explicit thread on a reply wins; an unknown parent is UNKNOWN_ID', async () => {
    const { ws, s1, s2 } = await threeSessions();
    const d = await ws.setUpSignal('proposal', { to: ['Planck'], intent: 'PROPOSE' }, { as: s2 });
    expect((await ws.signal('side', ['--reply-to', d.signal_id, '--thread', 'side-1'], { as: s1 })).thread_id).toBe('side-1');
    const head = ws.head();
    const r = await ws.run(['mem', 'signal', 'x', '--reply-to', 'sig-00000000'], { as: s1 });
    expect(r.code).toBe(2);
    expect(errorEnvelopeOf(r)).toMatchObject({ code: 'UNKNOWN_ID', message: 'Signal sig-00000000 not found' });
    expect(ws.head()).toBe(head);
  });

  /** §15's 22: three sessions, then s0 broadcasts b and sends d to s1 (built once, copied for each test). */
  const scenario22 = sharedWorkspace(async (ws) => {
    const s1 = await ws.setUpSession();
    const s2 = await ws.setUpSession();
    const s0 = await ws.setUpSession();
    const b = await ws.setUpSignal('broadcast', {}, { as: s0 });
    const d = await ws.setUpSignal('direct', { to: [s1] }, { as: s0 });
    return { s0, s1, s2, b, d };
  });
  const ids = (inbox: InboxEnvelope) => inbox.signals.map((s) => s.signal_id);

  it('22: visibility per reader', async () => {
    const { ws, s0, s1, s2, b, d } = await scenario22();
    const head = ws.head();
    expect(ids(await ws.inbox(['--for', s1, '--no-mark']))).toEqual([b.signal_id, d.signal_id]);
    expect(ids(await ws.inbox(['--for', s2, '--no-mark']))).toEqual([b.signal_id]);
    expect(ids(await ws.inbox(['--for', s0, '--no-mark']))).toEqual([]);
    expect(ws.head()).toBe(head);
  });

  it('23: reading marks delivered receipts once; --all shows them read', async () => {
    const { ws, s1, b, d } = await scenario22();
    const first = await ws.inbox([], { as: s1 });
    expect(first.marked).toBe(2);
    expect(first.signals.map((s) => s.read)).toEqual([false, false]);
    const receipts = ws.events().filter((e) => e.type === 'receipt.recorded');
    expect(receipts.map((e) => [e.data['signal_id'], e.data['reader_identity'], e.data['delivery_state'], e.data['via']])).toEqual([
      [b.signal_id, s1, 'delivered', 'inbox'],
      [d.signal_id, s1, 'delivered', 'inbox'],
    ]);
    expect((await ws.inbox([], { as: s1 })).signals).toEqual([]);
    const all = await ws.inbox(['--all'], { as: s1 });
    expect(all.signals.map((s) => [s.signal_id, s.read, s.delivery_state])).toEqual([
      [b.signal_id, true, 'delivered'],
      [d.signal_id, true, 'delivered'],
    ]);
  });

  it('24: reading for another identity never marks', async () => {
    const { ws, s2, b, d } = await scenario22();
    const r = await ws.inbox(['--for', 'Planck'], { as: s2 });
    expect(ids(r)).toEqual([b.signal_id, d.signal_id]);
    expect(r.marked).toBe(0);
  });

  it('24b: observer mode lists every signal and never marks; filters narrow', async () => {
    const { ws, b, d, s0 } = await scenario22();
    const head = ws.head();
    const all = await ws.inbox();
    expect(all.reader_identity).toBeNull();
    expect(ids(all)).toEqual([b.signal_id, d.signal_id]);
    expect(ws.head()).toBe(head);
    expect(ids(await ws.inbox(['--thread', d.thread_id]))).toEqual([d.signal_id]);
    const p = await ws.signal('prop', ['--to', 'Planck', '--intent', 'PROPOSE'], { as: s0 });
    expect(ids(await ws.inbox(['--intent', 'PROPOSE,AGREE']))).toEqual([p.signal_id]);
  });

  it('25: sessions sharing an agent identity share read state', async () => {
    const ws = await workspace();
    const s1 = await ws.setUpSession({ agent_identity: 'reviewer:docs:a' });
    const s2 = await ws.setUpSession();
    const s3 = await ws.setUpSession({ agent_identity: 'reviewer:docs:a' });
    const d = await ws.setUpSignal('check', { to: ['reviewer:docs:a'] }, { as: s2 });
    expect(ids(await ws.inbox([], { as: s1 }))).toEqual([d.signal_id]);
    expect((await ws.inbox([], { as: s3 })).signals).toEqual([]);
    const all = await ws.inbox(['--all'], { as: s3 });
    expect(all.signals).toMatchObject([{ signal_id: d.signal_id, read: true }]);
  });

  it('26: an AGREE reply promotes in the same batch; a non-recipient REJECT changes nothing', async () => {
    const { ws, s0, s1, s2 } = await threeSessions();
    const d = await ws.setUpSignal('please ack', { to: ['Planck'], requires_ack: true, intent: 'PROPOSE' }, { as: s2 });
    await ws.ok(['mem', 'inbox'], { as: s1 });
    const yes = await ws.send('yes', ['--reply-to', d.signal_id, '--intent', 'AGREE'], { as: s1 });
    expect(yes.promoted_receipts).toBe(1);
    const events = ws.events();
    const replyEvent = events.find((e) => e.type === 'signal.sent' && e.data['signal_id'] === yes.signal.signal_id)!;
    const receipt = events[replyEvent.seq]!; // the event right after (seq is 1-based)
    expect(receipt.seq).toBe(replyEvent.seq + 1);
    expect(receipt.data).toMatchObject({
      signal_id: d.signal_id,
      reader_identity: s1,
      delivery_state: 'acked',
      via: 'reply',
      cause_signal_id: yes.signal.signal_id,
    });
    await ws.signal('no', ['--thread', d.thread_id, '--intent', 'REJECT'], { as: s0 });
    const state = await ws.inbox(['--all', '--thread', d.thread_id], { as: s1 });
    expect(state.signals.find((s) => s.signal_id === d.signal_id)?.delivery_state).toBe('acked');
    expect(ws.events().filter((e) => e.type === 'receipt.recorded' && e.data['signal_id'] === d.signal_id && e.data['reader_identity'] === s0)).toEqual([]);
  });

  it('27: a vote in another thread changes nothing', async () => {
    const { ws, s1, s2 } = await threeSessions();
    const d = await ws.setUpSignal('d', { to: [s1] }, { as: s2 });
    await ws.ok(['mem', 'inbox'], { as: s1 });
    const r = await ws.send('agree', ['--thread', 'other-2', '--intent', 'AGREE'], { as: s1 });
    expect(r.promoted_receipts).toBe(0);
    const all = await ws.inbox(['--all', '--thread', d.thread_id], { as: s1 });
    expect(all.signals.map((s) => [s.signal_id, s.delivery_state])).toEqual([[d.signal_id, 'delivered']]);
  });

  it('28: a legacy target_agent-only record reads as A2A.V1', async () => {
    const { ws, s1 } = await oneSession();
    const data = { signal_id: 'sig-0000abcd', sender_identity: 'system', target_agent: s1, message: 'old', created_at: '2026-04-17T09:00:00.000Z' };
    await ws.ok(['log', 'append', '--type', 'signal.sent', '--stream', 'thread/sig-0000abcd', '--data', JSON.stringify(data)]);
    const r = await ws.inbox(['--for', s1, '--no-mark']);
    expect(r.signals).toMatchObject([
      {
        signal_id: 'sig-0000abcd',
        recipients: [s1],
        target_agent: s1,
        schema_version: 'A2A.V1',
        thread_id: 'sig-0000abcd',
        intent: 'INFO',
        interrupt_class: 'priority',
        origin: 'local',
      },
    ]);
  });

  it('28b: a mismatched target_agent is refused on write; schema_version other than A2A.V1 too', async () => {
    const { ws, s1 } = await oneSession();
    const base = {
      schema_version: 'A2A.V1',
      signal_id: 'sig-0000abce',
      sender_identity: 'system',
      recipients: [s1],
      target_agent: 'someone',
      thread_id: 't1',
      intent: 'INFO',
      interrupt_class: 'priority',
      requires_ack: false,
      message: 'm',
      origin: 'local',
      created_at: '2026-04-17T09:00:00.000Z',
      sender_session_id: null,
    };
    const head = ws.head();
    const r = await ws.run(['log', 'append', '--type', 'signal.sent', '--stream', 'thread/t1', '--data', JSON.stringify(base)]);
    expect(r.code).toBe(2);
    const v2 = await ws.run([
      'log',
      'append',
      '--type',
      'signal.sent',
      '--stream',
      'thread/t1',
      '--data',
      JSON.stringify({ ...base, target_agent: s1, schema_version: 'A2A.V2' }),
    ]);
    expect(v2.code).toBe(2);
    expect(ws.head()).toBe(head);
  });
});
