import { describe, expect, it } from 'vitest';
import type { ProposedEvent } from '../../deciders/decision.js';
import { decideSend, type SendSignal } from '../../deciders/signals.js';
import { coordinationStateProjection } from '../../projections/coordination/roster.js';
import { given, specify, T0, type Fact } from './given.js';

/** `mem signal`'s rules (coordination.md §6, §7.4), decided without a store: given facts, when a send, then events or a refusal. */
const NOW = new Date(Date.parse(T0) + 30 * 60_000).toISOString();
const session = (id: string, extra: Record<string, unknown> = {}): Fact => ({
  type: 'session.started',
  stream: `session/${id}`,
  data: { session_id: id, display_name: id.replace('session_', ''), ttl_seconds: 3600, ...extra },
});
const A = session('session_a');
const B = session('session_b');
const send = (over: Partial<SendSignal> = {}): SendSignal => ({
  message: 'hello',
  session: 'session_a',
  envIdentity: undefined,
  now: NOW,
  signalId: 'sig-01j00000000000000000000001',
  threadId: 'thread-01j00000000000000000000001',
  hosted: null,
  storeKey: (sender, key) => `key/${sender}/${key}`,
  ...over,
});
const signals = specify({ decide: decideSend, state: (facts) => given(coordinationStateProjection, facts) });
/** A sent signal as a fact of the log: the decider's own event. */
const asFact = (event: ProposedEvent): Fact => ({ type: event.type, stream: event.stream, data: event.data });

describe('mem signal', () => {
  it('given two live sessions, sends to the one named, on a new thread, with no expected version', () => {
    const decision = signals
      .given([A, B])
      .when(send({ to: ['session_b'] }))
      .decision()!;
    expect(decision.events).toHaveLength(1);
    expect(decision.events[0]).toMatchObject({ type: 'signal.sent', stream: 'thread/thread-01j00000000000000000000001' });
    expect(decision.events[0]!.data).toMatchObject({
      sender_identity: 'session_a',
      recipients: ['session_b'],
      intent: 'INFO',
      message: 'hello',
      created_at: NOW,
      sender_session_id: 'session_a',
    });
    expect(decision.expected).toEqual({});
    expect(decision.idempotencyKey).toBeUndefined();
  });

  it('a vote without a thread is refused, naming the intent field', () => {
    signals
      .given([A])
      .when(send({ intent: 'AGREE' }))
      .thenRefuses('INVALID_INPUT', 'intent: AGREE is a vote in a thread: give --reply-to SIG or --thread T');
  });

  it('an unknown acting session is UNKNOWN_ID; an ended one is SESSION_ENDED', () => {
    signals.given([]).when(send()).thenRefuses('UNKNOWN_ID', 'Session session_a not found');
    const ended: Fact = { type: 'session.ended', stream: 'session/session_a', data: { session_id: 'session_a', status: 'succeeded' } };
    signals.given([A, ended]).when(send()).thenRefuses('SESSION_ENDED', 'Session session_a has ended (succeeded)');
  });

  it('a signal to its own sender is SELF_ADDRESSED; requires_ack of a broadcast is refused', () => {
    signals
      .given([A])
      .when(send({ to: ['session_a'] }))
      .thenRefuses('SELF_ADDRESSED', 'to: session_a is the sender; a session cannot signal itself');
    signals
      .given([A])
      .when(send({ requires_ack: true }))
      .thenRefuses('INVALID_INPUT', 'requires_ack: needs at least one recipient (a broadcast cannot be acknowledged)');
  });

  it('an unknown recipient, reply, WU or initiative is refused naming its field', () => {
    signals
      .given([A])
      .when(send({ to: ['nobody'] }))
      .thenRefuses('UNKNOWN_RECIPIENT', 'to: "nobody" is no live session id, known agent identity or live display name');
    signals
      .given([A])
      .when(send({ reply_to: 'sig-00000000' }))
      .thenRefuses('UNKNOWN_ID', 'Signal sig-00000000 not found');
    signals
      .given([A])
      .when(send({ wu: 'WU-9' }))
      .thenRefuses('UNKNOWN_ID', 'wu: WU WU-9 not found');
    signals
      .given([A])
      .when(send({ initiative: 'INIT-9' }))
      .thenRefuses('UNKNOWN_ID', 'initiative: Initiative INIT-9 not found');
  });

  it('the hosted profile stamps its workspace, refuses another one, and refuses to send without one', () => {
    const stamped = signals
      .given([A])
      .when(send({ hosted: { workspaceId: 'ws-1' } }))
      .decision()!;
    expect(stamped.events[0]!.data['workspace_id']).toBe('ws-1');
    signals
      .given([A])
      .when(send({ hosted: { workspaceId: 'ws-1' }, workspace_id: 'ws-2' }))
      .thenRefuses('INVALID_INPUT');
    signals
      .given([A])
      .when(send({ hosted: { workspaceId: undefined } }))
      .thenRefuses('WORKSPACE_ID_REQUIRED');
  });

  it('an idempotency key names the store key; a repeat appends nothing and names the first; other content is IDEMPOTENCY_CONFLICT', () => {
    const first = signals
      .given([A, B])
      .when(send({ to: ['session_b'], idempotency_key: 'k1' }))
      .decision()!;
    expect(first.idempotencyKey).toBe('key/session_a/k1');
    const sent = asFact(first.events[0]!);
    signals
      .given([A, B, sent])
      .when(send({ to: ['session_b'], idempotency_key: 'k1', signalId: 'sig-01j00000000000000000000002' }))
      .thenNothing();
    const repeat = signals
      .given([A, B, sent])
      .when(send({ idempotency_key: 'k1' }))
      .decision()!;
    expect(repeat.outcome).toMatchObject({ duplicate: { data: { signal_id: 'sig-01j00000000000000000000001' } } });
    signals
      .given([A, B, sent])
      .when(send({ message: 'other', idempotency_key: 'k1' }))
      .thenRefuses('IDEMPOTENCY_CONFLICT');
  });

  it("a reply goes to the parent's sender in its thread; an AGREE promotes the reader's receipts to acked (§7.4)", () => {
    const ask = signals
      .given([A, B])
      .when(send({ to: ['session_b'], requires_ack: true }))
      .decision()!;
    const asked = asFact(ask.events[0]!);
    const agree = signals
      .given([A, B, asked])
      .when(send({ session: 'session_b', intent: 'AGREE', reply_to: 'sig-01j00000000000000000000001', signalId: 'sig-01j00000000000000000000002' }))
      .decision()!;
    expect(agree.events.map((e) => e.type)).toEqual(['signal.sent', 'receipt.recorded']);
    expect(agree.events[0]!.data).toMatchObject({
      recipients: ['session_a'],
      thread_id: 'thread-01j00000000000000000000001',
      reply_to: 'sig-01j00000000000000000000001',
    });
    expect(agree.events[1]!.data).toMatchObject({
      signal_id: 'sig-01j00000000000000000000001',
      reader_identity: 'session_b',
      delivery_state: 'acked',
      via: 'reply',
      cause_signal_id: 'sig-01j00000000000000000000002',
    });
    expect(agree.outcome).toMatchObject({ promoted: 1 });
  });
});
