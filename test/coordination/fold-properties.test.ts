import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BatonEvent } from '../../events/baton-event.js';
import { dataOf, decoded } from '../helpers/decoded.js';
import { convergenceView } from '../../projections/coordination/convergence.js';
import {
  applyCoordination,
  deserializeCoordination,
  initCoordination,
  serializeCoordination,
  type CoordinationState,
} from '../../projections/coordination/state.js';

/**
 * Properties of the coordination fold : for random interleavings of signals,
 * replies and reads by several sessions, receipts and convergence computed incrementally (through a
 * snapshot round trip at any split) equal those computed from scratch; and convergence does not
 * depend on the order in which independent receipts were recorded.
 */
const IDS = ['session_a', 'session_b', 'session_c'] as const;
const INTENTS = ['INFO', 'PROPOSE', 'COUNTER', 'AGREE', 'REJECT'] as const;
const T = '2026-04-17T10:00:00.000Z';

type Op =
  | { kind: 'send'; sender: number; to: number[]; intent: number; thread: number; reply: number | null }
  | { kind: 'read'; reader: number; signal: number; state: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('send' as const),
    sender: fc.nat(2),
    to: fc.uniqueArray(fc.nat(2), { maxLength: 3 }),
    intent: fc.nat(4),
    thread: fc.nat(2),
    reply: fc.option(fc.nat(20), { nil: null }),
  }),
  fc.record({ kind: fc.constant('read' as const), reader: fc.nat(2), signal: fc.nat(20), state: fc.nat(2) }),
);

function event(seq: number, type: string, stream: string, data: Record<string, unknown>, actor = 'system'): BatonEvent {
  return decoded({ v: 1, seq, id: `e${seq}`, type, stream, at: T, actor, data, prev: '0'.repeat(64), hash: '0'.repeat(64) });
}

/** Turn ops into a log: three sessions, then signals (with valid replies) and receipts. */
function buildLog(ops: readonly Op[]): BatonEvent[] {
  const log: BatonEvent[] = IDS.map((id, i) => event(i + 1, 'session.started', `session/${id}`, { session_id: id, display_name: `N${i}`, ttl_seconds: 3600 }));
  const signals: { id: string; thread: string; sender: string; recipients: string[] }[] = [];
  for (const op of ops) {
    const seq = log.length + 1;
    if (op.kind === 'send') {
      const sender = IDS[op.sender]!;
      const parent = op.reply !== null ? signals[op.reply % Math.max(1, signals.length)] : undefined;
      const thread = parent?.thread ?? `t${op.thread}`;
      const recipients = op.to.map((i) => IDS[i]!).filter((r) => r !== sender);
      const id = `sig-${String(seq).padStart(6, '0')}`;
      signals.push({ id, thread, sender, recipients });
      log.push(
        event(
          seq,
          'signal.sent',
          `thread/${thread}`,
          {
            schema_version: 'A2A.V1',
            signal_id: id,
            sender_identity: sender,
            recipients,
            ...(recipients.length > 0 ? { target_agent: recipients[0] } : {}),
            thread_id: thread,
            ...(parent ? { reply_to: parent.id } : {}),
            intent: INTENTS[op.intent],
            interrupt_class: recipients.length > 0 ? 'priority' : 'advisory',
            requires_ack: false,
            message: 'm',
            origin: 'local',
            created_at: T,
            sender_session_id: sender,
          },
          sender,
        ),
      );
    } else if (signals.length > 0) {
      const s = signals[op.signal % signals.length]!;
      const reader = IDS[op.reader]!;
      if (reader === s.sender) continue;
      log.push(
        event(seq, 'receipt.recorded', `thread/${s.thread}`, {
          signal_id: s.id,
          reader_identity: reader,
          read_at: T,
          delivery_state: ['delivered', 'acked', 'rejected'][op.state],
          thread_id: s.thread,
          session_id: reader,
          via: 'inbox',
          cause_signal_id: null,
        }),
      );
    }
  }
  return log;
}

function fold(events: readonly BatonEvent[], state: CoordinationState = initCoordination()): CoordinationState {
  for (const e of events) state = applyCoordination(state, e);
  return state;
}

function observable(state: CoordinationState) {
  return {
    receipts: [...state.receipts].map(([id, readers]) => [id, [...readers].sort()]),
    convergence: [...state.threads.keys()].sort().map((t) => convergenceView(state, T, t)),
    findings: state.findings,
  };
}

describe('coordination fold properties', () => {
  it('incremental (snapshot round trip at any split) equals from scratch', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), fc.nat(), (ops, splitSeed) => {
        const log = buildLog(ops);
        const split = splitSeed % (log.length + 1);
        const scratch = fold(log);
        const snapshot = JSON.parse(JSON.stringify(serializeCoordination(fold(log.slice(0, split))))) as unknown;
        const incremental = fold(log.slice(split), deserializeCoordination(snapshot));
        expect(observable(incremental)).toEqual(observable(scratch));
        expect(JSON.stringify(serializeCoordination(incremental))).toBe(JSON.stringify(serializeCoordination(scratch)));
      }),
      { numRuns: 300 },
    );
  });

  it('convergence does not depend on receipts, nor on the order they were recorded', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 40 }), (ops, shuffleKeys) => {
        const log = buildLog(ops);
        const signalsOnly = log.filter((e) => e.type !== 'receipt.recorded');
        const receipts = log.filter((e) => e.type === 'receipt.recorded');
        // Move receipts to arbitrary later positions (all after the signals they name: append at the end, shuffled).
        const shuffled = receipts
          .map((r, i) => ({ r, k: shuffleKeys[i] ?? i }))
          .sort((a, b) => a.k - b.k)
          .map((x) => x.r);
        const withoutReceipts = observable(fold(signalsOnly)).convergence;
        expect(observable(fold(log)).convergence).toEqual(withoutReceipts);
        expect(observable(fold([...signalsOnly, ...shuffled])).convergence).toEqual(withoutReceipts);
      }),
      { numRuns: 300 },
    );
  });

  it('receipts for independent (signal, reader) pairs commute; delivered never downgrades a vote', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const log = buildLog(ops);
        const signalsOnly = log.filter((e) => e.type !== 'receipt.recorded');
        const receipts = log.filter((e) => e.type === 'receipt.recorded');
        // Regroup receipts per (signal, reader), keeping each pair's own order: the state must not change.
        const key = (e: BatonEvent) => `${String(dataOf(e)['signal_id'])}|${String(dataOf(e)['reader_identity'])}`;
        const regrouped = [...receipts].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.seq - b.seq));
        const a = fold([...signalsOnly, ...receipts]);
        const b = fold([...signalsOnly, ...regrouped]);
        const byId = (s: CoordinationState) => new Map([...s.receipts].map(([id, readers]) => [id, [...readers].sort()]));
        expect(byId(b)).toEqual(byId(a));
        for (const e of receipts) {
          const id = String(dataOf(e)['signal_id']);
          const reader = String(dataOf(e)['reader_identity']);
          const votes = receipts.filter((r) => key(r) === key(e) && dataOf(r)['delivery_state'] !== 'delivered');
          const expected = votes.length > 0 ? dataOf(votes.at(-1)!)['delivery_state'] : 'delivered';
          expect(a.receipts.get(id)?.get(reader)).toBe(expected);
        }
      }),
      { numRuns: 300 },
    );
  });
});
