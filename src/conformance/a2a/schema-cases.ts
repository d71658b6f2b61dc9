import { expect } from 'vitest';
import { SYSTEM_IDENTITY } from '../../../events/coordination/identities.js';
import { A2AReceiptV1 } from '../../../events/coordination/receipt.js';
import { A2ASignalV1, SignalSentData, toA2ASignalV1 } from '../../../events/coordination/signal.js';
import type { SendSignalInput } from '../../coordination/send.js';
import { ErrorCode } from '../../errors.js';
import type { CasesOf } from './cases.js';
import { type CaseBody, untyped, idsOf, contractOf, NOW, WS } from './world.js';

/** The Schema cases of the A2A conformance suite (coordination.md §13). */
export const SCHEMA_CASES: CasesOf<'Schema', CaseBody> = {
  async SC1(w) {
    await w.withWus('WU-1');
    const reviewer = await w.start({ agent_identity: 'reviewer:docs:a' });
    const sender = await w.start();
    const sent = await w.send(sender, {
      message: 'Approve the boundary?',
      to: ['reviewer:docs:a'],
      wu: 'WU-1',
      initiative: 'INIT-1',
      lane: 'L1',
      role: 'reviewer',
      intent: 'PROPOSE',
      requires_ack: true,
      thread: 'boundary-1',
      interrupt_class: 'interrupt',
      idempotency_key: 'sc1-key',
      workspace_id: WS,
    });
    const expected = {
      schema_version: 'A2A.V1',
      signal_id: sent.signal.signal_id,
      sender_identity: sender.identity,
      recipients: [reviewer.identity],
      target_agent: reviewer.identity,
      workspace_id: WS,
      thread_id: 'boundary-1',
      intent: 'PROPOSE',
      interrupt_class: 'interrupt',
      requires_ack: true,
      message: 'Approve the boundary?',
      idempotency_key: 'sc1-key',
      origin: 'local',
      wu_id: 'WU-1',
      initiative: 'INIT-1',
      lane: 'L1',
      role: 'reviewer',
      created_at: NOW,
    };
    expect(sent.signal).toStrictEqual(expected);
    expect(sent.signal.signal_id).toMatch(/^sig-[0-9a-z]{26}$/);
    // The result is exactly the contract: the strict schema accepts it unchanged.
    expect(A2ASignalV1.parse(sent.signal)).toStrictEqual(expected);

    // Read back from the log (on the thread's stream, at the reported seq) ...
    const stored = await w.signals();
    expect(stored.map((s) => [s.seq, s.stream])).toEqual([[sent.seq, 'thread/boundary-1']]);
    expect(toA2ASignalV1(stored[0]!.data)).toStrictEqual(expected);
    expect(stored[0]!.data.sender_session_id).toBe(sender.id);
    // ... and through the inbox view of the recipient.
    const listed = await w.visible(reviewer.identity);
    expect(listed).toHaveLength(1);
    expect(contractOf(listed[0]!)).toStrictEqual(expected);
    expect(listed[0]).toMatchObject({ seq: sent.seq, read: false, delivery_state: null, sender_display_name: sender.name });
  },

  async SC2(w) {
    const reader = await w.start();
    const valid = w.rawSignal({
      signal_id: 'sig-0000sc2a',
      thread_id: 't-sc2',
      recipients: [reader.identity],
      target_agent: reader.identity,
      interrupt_class: 'priority',
    });
    expect(A2ASignalV1.safeParse(toA2ASignalV1(SignalSentData.parse(valid))).success).toBe(true);
    for (const version of ['A2A.V2', 'a2a.v1', 'A2A.V0', '']) {
      expect(A2ASignalV1.safeParse({ ...toA2ASignalV1(SignalSentData.parse(valid)), schema_version: version }).success, version).toBe(false);
      await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () =>
        w.append([{ type: 'signal.sent', stream: 'thread/t-sc2', data: { ...valid, schema_version: version } }]),
      );
    }
    // Legacy records (no schema_version; LumenFlow's id/sender) are accepted and read as A2A.V1.
    await w.append([
      {
        type: 'signal.sent',
        stream: 'thread/sig-0000abcd',
        data: {
          signal_id: 'sig-0000abcd',
          sender_identity: SYSTEM_IDENTITY,
          recipients: [reader.identity],
          message: 'old',
          created_at: '2026-04-17T09:00:00.000Z',
          ...w.workspaceFields,
        },
      },
      {
        type: 'signal.sent',
        stream: 'thread/sig-1a2b3c4d',
        data: { id: 'sig-1a2b3c4d', sender: SYSTEM_IDENTITY, message: 'older broadcast', created_at: '2026-04-17T09:00:01.000Z', ...w.workspaceFields },
      },
    ]);
    const listed = await w.visible(reader.identity);
    expect(listed.map(contractOf)).toStrictEqual([
      {
        schema_version: 'A2A.V1',
        signal_id: 'sig-0000abcd',
        sender_identity: SYSTEM_IDENTITY,
        recipients: [reader.identity],
        target_agent: reader.identity,
        ...w.workspaceFields,
        thread_id: 'sig-0000abcd',
        intent: 'INFO',
        interrupt_class: 'priority',
        requires_ack: false,
        message: 'old',
        origin: 'local',
        created_at: '2026-04-17T09:00:00.000Z',
      },
      {
        schema_version: 'A2A.V1',
        signal_id: 'sig-1a2b3c4d',
        sender_identity: SYSTEM_IDENTITY,
        recipients: [],
        ...w.workspaceFields,
        thread_id: 'sig-1a2b3c4d',
        intent: 'INFO',
        interrupt_class: 'advisory',
        requires_ack: false,
        message: 'older broadcast',
        origin: 'local',
        created_at: '2026-04-17T09:00:01.000Z',
      },
    ]);
    for (const item of listed) expect(A2ASignalV1.safeParse(contractOf(item)).success).toBe(true);
    expect((await w.state()).findings).toEqual([]);
  },

  async SC3(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    for (const bad of [{ intent: 'MAYBE' }, { intent: 'agree' }, { interrupt_class: 'loud' }, { interrupt_class: 'PRIORITY' }]) {
      await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () => w.send(s2, untyped<SendSignalInput>({ message: 'x', to: [s1.id], ...bad })));
      const record = w.rawSignal({ signal_id: 'sig-0000sc3a', thread_id: 't-sc3', ...bad });
      await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () => w.append([{ type: 'signal.sent', stream: 'thread/t-sc3', data: record }]));
      const contract = { ...toA2ASignalV1(SignalSentData.parse(w.rawSignal({ signal_id: 'sig-0000sc3a', thread_id: 't-sc3' }))), ...bad };
      expect(A2ASignalV1.safeParse(contract).success, JSON.stringify(bad)).toBe(false);
    }
    // Every value of both enums is accepted.
    for (const intent of ['INFO', 'PROPOSE', 'COUNTER', 'AGREE', 'REJECT'] as const) {
      for (const interrupt_class of ['interrupt', 'priority', 'advisory'] as const) {
        const sent = await w.send(s2, { message: `${intent} ${interrupt_class}`, to: [s1.id], intent, interrupt_class, thread: 't-sc3' });
        expect([sent.signal.intent, sent.signal.interrupt_class]).toEqual([intent, interrupt_class]);
      }
    }
  },

  async SC4(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    for (const message of ['', ' ', '   ', '\n\t  ']) {
      await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () => w.send(s2, { message, to: [s1.id] }));
      await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () =>
        w.append([{ type: 'signal.sent', stream: 'thread/t-sc4', data: w.rawSignal({ signal_id: 'sig-0000sc4a', thread_id: 't-sc4', message }) }]),
      );
    }
    const optional: Partial<SendSignalInput>[] = [
      { lane: '' },
      { lane: '   ' },
      { role: '' },
      { role: '  ' },
      { thread: '' },
      { thread: '  ' },
      { idempotency_key: '' },
      { idempotency_key: '   ' },
      { workspace_id: '' },
      { workspace_id: '  ' },
      { wu: ' ' },
      { initiative: ' ' },
      { reply_to: ' ' },
      { to: ['  '] },
      { to: [''] },
    ];
    for (const fields of optional) {
      await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () => w.send(s2, { message: 'x', ...fields }), `a send with ${JSON.stringify(fields)}`);
    }
    // The message is stored trimmed; a trimmed message of 16,384 characters is accepted, one more is not.
    const trimmed = await w.send(s2, { message: `  ${'y'.repeat(16_384)}  `, to: [s1.id] });
    expect(trimmed.signal.message).toBe('y'.repeat(16_384));
    await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () => w.send(s2, { message: 'y'.repeat(16_385), to: [s1.id] }));
  },

  async SC5(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    const sent = await w.send(s2, { message: 'read me', to: [s1.id] });
    const receipt = {
      signal_id: sent.signal.signal_id,
      reader_identity: s1.identity,
      read_at: NOW,
      thread_id: sent.signal.thread_id,
      session_id: s1.id,
      via: 'inbox',
      cause_signal_id: null,
    };
    for (const state of ['read', 'seen', 'DELIVERED', 'acknowledged', '']) {
      expect(
        A2AReceiptV1.safeParse({ signal_id: sent.signal.signal_id, reader_identity: s1.identity, read_at: NOW, delivery_state: state }).success,
        state,
      ).toBe(false);
      await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () =>
        w.append([{ type: 'receipt.recorded', stream: `thread/${sent.signal.thread_id}`, data: { ...receipt, delivery_state: state } }]),
      );
    }
    expect(await w.stateOf(sent.signal.signal_id, s1.identity)).toBeNull();
    // The three values are accepted and fold (delivered, then the latest vote).
    for (const state of ['delivered', 'acked', 'rejected'] as const) {
      expect(A2AReceiptV1.parse({ signal_id: sent.signal.signal_id, reader_identity: s1.identity, read_at: NOW, delivery_state: state }).delivery_state).toBe(
        state,
      );
      await w.append([{ type: 'receipt.recorded', stream: `thread/${sent.signal.thread_id}`, data: { ...receipt, delivery_state: state } }]);
      expect(await w.stateOf(sent.signal.signal_id, s1.identity)).toBe(state);
    }
  },

  async SC6(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    const directed = w.rawSignal({ signal_id: 'sig-0000sc6a', thread_id: 't-sc6', recipients: [s1.identity, s2.identity], interrupt_class: 'priority' });
    for (const target_agent of [s2.identity, 'someone-else', SYSTEM_IDENTITY]) {
      await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () =>
        w.append([{ type: 'signal.sent', stream: 'thread/t-sc6', data: { ...directed, target_agent } }]),
      );
      expect(A2ASignalV1.safeParse(toA2ASignalV1({ ...SignalSentData.parse({ ...directed, target_agent: s1.identity }), target_agent })).success).toBe(false);
    }
    // A directed record without the alias, and a broadcast with one, are refused too.
    await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () => w.append([{ type: 'signal.sent', stream: 'thread/t-sc6', data: directed }]));
    await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () =>
      w.append([
        { type: 'signal.sent', stream: 'thread/t-sc6', data: w.rawSignal({ signal_id: 'sig-0000sc6b', thread_id: 't-sc6', target_agent: s1.identity }) },
      ]),
    );
    // Legacy: target_agent only, or with empty recipients, reads as recipients [target_agent].
    await w.append([
      {
        type: 'signal.sent',
        stream: 'thread/sig-0000sc6c',
        data: { signal_id: 'sig-0000sc6c', sender_identity: SYSTEM_IDENTITY, target_agent: s1.identity, message: 'old', created_at: NOW, ...w.workspaceFields },
      },
      {
        type: 'signal.sent',
        stream: 'thread/sig-0000sc6d',
        data: {
          signal_id: 'sig-0000sc6d',
          sender_identity: s2.identity,
          recipients: [],
          target_agent: s1.identity,
          message: 'old too',
          created_at: NOW,
          ...w.workspaceFields,
        },
      },
    ]);
    const listed = await w.visible(s1.identity);
    expect(listed.map((s) => [s.signal_id, s.recipients, s.target_agent, s.interrupt_class])).toEqual([
      ['sig-0000sc6c', [s1.identity], s1.identity, 'priority'],
      ['sig-0000sc6d', [s1.identity], s1.identity, 'priority'],
    ]);
    // Directed, so nobody else sees them.
    expect(idsOf(await w.visible(s2.identity))).toEqual([]);
  },
};
