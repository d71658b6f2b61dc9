import { describe, expect, it } from 'vitest';
import { decidePrepOverride } from '../../deciders/prep.js';
import { decideReceipts, type RecordReceipts } from '../../deciders/receipts.js';
import { coordinationStateProjection } from '../../projections/coordination/roster.js';
import { given, specify, T0, type Fact } from './given.js';

/** Receipts of a read (coordination.md §7.2) and the prep override (§10), decided without a store. */
const NOW = new Date(Date.parse(T0) + 30 * 60_000).toISOString();
const session = (id: string): Fact => ({ type: 'session.started', stream: `session/${id}`, data: { session_id: id, display_name: id, ttl_seconds: 3600 } });
const signal = (id: string, thread: string): Fact => ({
  type: 'signal.sent',
  stream: `thread/${thread}`,
  data: {
    schema_version: 'A2A.V1',
    signal_id: id,
    sender_identity: 'session_a',
    recipients: ['session_b'],
    target_agent: 'session_b',
    thread_id: thread,
    intent: 'INFO',
    interrupt_class: 'priority',
    requires_ack: false,
    message: id,
    origin: 'local',
    created_at: T0,
    sender_session_id: 'session_a',
  },
});
const receipt = (id: string, thread: string, state = 'delivered'): Fact => ({
  type: 'receipt.recorded',
  stream: `thread/${thread}`,
  data: {
    signal_id: id,
    reader_identity: 'session_b',
    read_at: T0,
    delivery_state: state,
    thread_id: thread,
    session_id: 'session_b',
    via: 'inbox',
    cause_signal_id: null,
  },
});
const read = (ids: string[]): RecordReceipts => ({ signalIds: ids, reader: 'session_b', session: 'session_b', via: 'hook', now: NOW });
const receipts = specify({ decide: decideReceipts, state: (facts) => given(coordinationStateProjection, facts) });
const facts = [session('session_a'), session('session_b'), signal('sig-00000001', 't1'), signal('sig-00000002', 't2')];

describe('receipts of a read', () => {
  it('marks every shown signal delivered for the reader, on its thread, with no expected version', () => {
    const decision = receipts
      .given(facts)
      .when(read(['sig-00000001', 'sig-00000002']))
      .then([
        {
          type: 'receipt.recorded',
          stream: 'thread/t1',
          data: {
            signal_id: 'sig-00000001',
            reader_identity: 'session_b',
            read_at: NOW,
            delivery_state: 'delivered',
            thread_id: 't1',
            session_id: 'session_b',
            via: 'hook',
            cause_signal_id: null,
          },
        },
        {
          type: 'receipt.recorded',
          stream: 'thread/t2',
          data: {
            signal_id: 'sig-00000002',
            reader_identity: 'session_b',
            read_at: NOW,
            delivery_state: 'delivered',
            thread_id: 't2',
            session_id: 'session_b',
            via: 'hook',
            cause_signal_id: null,
          },
        },
      ]);
    expect(decision.expected).toEqual({});
    expect(decision.outcome).toEqual({ receipted: ['sig-00000001', 'sig-00000002'] });
  });

  it('skips what the reader already has a receipt for, a signal shown twice, and one the log does not know', () => {
    const decision = receipts
      .given([...facts, receipt('sig-00000001', 't1', 'acked')])
      .when(read(['sig-00000001', 'sig-00000002', 'sig-00000002', 'sig-0000dead']))
      .decision();
    expect(decision?.outcome).toEqual({ receipted: ['sig-00000002'] });
  });

  it('when everything shown is already receipted, appends nothing', () => {
    receipts
      .given([...facts, receipt('sig-00000001', 't1'), receipt('sig-00000002', 't2')])
      .when(read(['sig-00000001', 'sig-00000002']))
      .thenNothing();
  });
});

describe('the prep override', () => {
  const gate = { reader_identity: 'session_b', session_id: 'session_b', overridden_signal_ids: ['sig-00000001'] };

  it('records the waived signals with the reason on the WU stream', () => {
    expect(decidePrepOverride({ wuId: 'WU-1', reason: 'read in chat', gate })?.events).toEqual([
      {
        type: 'wu.prep_overridden',
        stream: 'wu/WU-1',
        data: { wu_id: 'WU-1', session_id: 'session_b', reader_identity: 'session_b', reason: 'read in chat', signal_ids: ['sig-00000001'] },
      },
    ]);
  });

  it('nothing waived, or no reader, is nothing to record', () => {
    expect(decidePrepOverride({ wuId: 'WU-1', reason: 'r', gate: { ...gate, overridden_signal_ids: [] } })).toBeNull();
    expect(decidePrepOverride({ wuId: 'WU-1', reason: 'r', gate: { ...gate, reader_identity: null } })).toBeNull();
  });
});
