import { expect } from 'vitest';
import { receiptState } from '../../../projections/coordination/signals.js';
import { applyCoordination, initCoordination } from '../../../projections/coordination/state.js';
import { watchSignals, type WatchDelivery } from '../../coordination/delivery.js';
import type { SendResult, SendSignalInput } from '../../coordination/send.js';
import { sleep } from '../async-checks.js';
import type { CasesOf } from './cases.js';
import { type Who, type CaseBody, waitFor, idsOf, NOW, CONCURRENCY } from './world.js';

/** The Concurrency cases of the A2A conformance suite (coordination.md §13). */
export const CONCURRENCY_CASES: CasesOf<'Concurrency', CaseBody> = {
  async X1(w) {
    const s1 = await w.start();
    const senders = [];
    for (let i = 0; i < CONCURRENCY; i++) senders.push(await w.start());
    const handles = await Promise.all(senders.map(() => w.harness.openAnother()));
    const results = await Promise.all(
      senders.flatMap((sender, i) => [0, 1].map((k) => w.send(sender, { message: `n${i}.${k}`, to: [s1.id] }, { store: handles[i]! }))),
    );
    const events = await w.events();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect((await w.store.verify()).ok).toBe(true);
    const stored = await w.signals();
    expect(stored.length).toBe(2 * CONCURRENCY);
    expect(new Set(stored.map((s) => s.data.signal_id))).toEqual(new Set(results.map((r) => r.signal.signal_id)));
    for (const r of results) expect(stored.find((s) => s.data.signal_id === r.signal.signal_id)?.seq).toBe(r.seq);
    // The recipient sees every one, in seq order.
    const inbox = await w.visible(s1.identity);
    expect(inbox.map((s) => s.seq)).toEqual([...results.map((r) => r.seq)].sort((a, b) => a - b));
  },

  async X2(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const threads = Array.from({ length: CONCURRENCY }, (_, i) => `x2-${i}`);
    const sent: SendResult[] = [];
    for (const thread of threads) sent.push(await w.send(s0, { message: thread, to: [s1.id, s2.id], thread }));
    const handles = await Promise.all([...threads, ...threads].map(() => w.harness.openAnother()));
    const marks = await Promise.all([
      ...threads.map((thread, i) => w.inbox(s1, { thread }, { store: handles[i]! })),
      ...threads.map((thread, i) => w.inbox(s2, { thread }, { store: handles[threads.length + i]! })),
    ]);
    expect(marks.map((m) => m.marked)).toEqual(marks.map(() => 1));
    const receipts = await w.receipts();
    expect(receipts.length).toBe(2 * CONCURRENCY);
    for (const reader of [s1, s2]) {
      expect(new Set(receipts.filter((r) => r.data.reader_identity === reader.identity).map((r) => r.data.signal_id))).toEqual(
        new Set(sent.map((s) => s.signal.signal_id)),
      );
    }
    for (const s of sent) {
      expect(await w.stateOf(s.signal.signal_id, s1.identity)).toBe('delivered');
      expect(await w.stateOf(s.signal.signal_id, s2.identity)).toBe('delivered');
    }
    const events = await w.events();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  },

  async X3(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const d = await w.send(s0, { message: 'read me once', to: [s1.id] });
    const handles = await Promise.all(Array.from({ length: CONCURRENCY }, () => w.harness.openAnother()));
    const marks = await Promise.all(handles.map((store) => w.inbox(s1, {}, { store })));
    // At least one marked it; however many did, the receipts fold to one delivered state.
    expect(marks.some((m) => m.marked === 1)).toBe(true);
    const receipts = await w.receipts();
    expect(receipts.length).toBe(marks.reduce((sum, m) => sum + m.marked, 0));
    for (const r of receipts) expect([r.data.signal_id, r.data.reader_identity, r.data.delivery_state]).toEqual([d.signal.signal_id, s1.identity, 'delivered']);
    const state = await w.state();
    expect(receiptState(state, d.signal.signal_id, s1.identity)).toBe('delivered');
    expect(state.findings).toEqual([]);
    expect((await w.inbox(s1, {})).signals).toEqual([]);
    expect((await w.inbox(s1, { all: true })).signals.map((s) => [s.signal_id, s.delivery_state])).toEqual([[d.signal.signal_id, 'delivered']]);
  },

  async X4(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    const handles = await Promise.all(Array.from({ length: CONCURRENCY }, () => w.harness.openAnother()));
    const results = await Promise.all(handles.map((store) => w.send(s2, { message: 'race', to: [s1.id], idempotency_key: 'k-race' }, { store })));
    expect(new Set(results.map((r) => r.signal.signal_id)).size).toBe(1);
    expect(results.filter((r) => !r.deduplicated).length).toBe(1);
    const stored = await w.signals();
    expect(stored.map((s) => s.data.signal_id)).toEqual([results[0]!.signal.signal_id]);
    expect(results.every((r) => r.seq === stored[0]!.seq)).toBe(true);
  },

  async X5(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const early = await w.send(s0, { message: 'before the watcher', to: [s1.id] });
    const delivered: WatchDelivery[] = [];
    let failure: unknown;
    const watch = await watchSignals(w.env(), s1.id, { once: false, clock: () => NOW, onDelivery: (d) => delivered.push(d) });
    watch.done.catch((error: unknown) => {
      failure = error;
    });
    const until = async (condition: () => boolean, what: string): Promise<void> => {
      await waitFor(() => failure !== undefined || condition(), what);
      if (failure !== undefined) throw failure;
    };
    try {
      // The catch-up set is delivered before watchSignals returns.
      expect(idsOf(delivered.map((d) => d.signal))).toEqual([early.signal.signal_id]);
      const rounds = 4;
      // Per round, visible to S1: directed to it, or a broadcast by someone else; invisible: to others only, or S1's own.
      const plan = (writer: Who, round: number): SendSignalInput => {
        const message = `${writer.name} #${round}`;
        if (writer.id === s1.id) return round % 2 === 0 ? { message, to: [s2.id] } : { message };
        const other = writer.id === s0.id ? s2 : s0;
        return [{ message, to: [s1.id] }, { message }, { message, to: [s1.id, other.id] }, { message, to: [other.id] }][round % 4]!;
      };
      const writers = [s0, s2, s1];
      const handles = await Promise.all(writers.map(() => w.harness.openAnother()));
      const sent = await Promise.all(
        writers.map(async (writer, i) => {
          const out: SendResult[] = [];
          for (let round = 0; round < rounds; round++) out.push(await w.send(writer, plan(writer, round), { store: handles[i]! }));
          return out;
        }),
      );
      // A last visible signal: once it is delivered, every earlier event has been through the watcher.
      const last = await w.send(s2, { message: 'last', to: [s1.id] });
      const all = [early, ...sent.flat(), last];
      const visible = all
        .filter((s) => s.signal.sender_identity !== s1.identity && (s.signal.recipients.length === 0 || s.signal.recipients.includes(s1.identity)))
        .sort((a, b) => a.seq - b.seq);
      expect(visible.length).toBe(2 + 2 * 3);
      await until(() => delivered.some((d) => d.signal.signal_id === last.signal.signal_id), 'the last signal to be delivered');
      await sleep(50);
      if (failure !== undefined) throw failure;
      expect(idsOf(delivered.map((d) => d.signal))).toEqual(idsOf(visible.map((s) => s.signal)));
      expect(delivered.every((d) => d.session_id === s1.id && d.reader_identity === s1.identity)).toBe(true);
      // Each delivery is followed by its receipt; wait for the last one before closing.
      const deadline = Date.now() + 15_000;
      while (!(await w.receipts()).some((r) => r.data.via === 'watch' && r.data.signal_id === last.signal.signal_id)) {
        if (Date.now() > deadline) throw new Error('timed out waiting for the watcher to record its last receipt');
        await sleep(10);
      }
    } finally {
      await watch.close();
    }
    const byWatch = (await w.receipts()).filter((r) => r.data.via === 'watch');
    expect(byWatch.map((r) => r.data.signal_id).sort()).toEqual(idsOf(delivered.map((d) => d.signal)).sort());
    // A restarted watcher has nothing left to deliver.
    expect(await w.watchOnce(s1.id)).toEqual([]);
  },

  async X6(w) {
    // Deterministic race: two starts that recorded the same name, settled by the fold.
    const raced = ['session_00000000000000000000x6a1', 'session_00000000000000000000x6a2'];
    await w.append(
      raced.map((session_id) => ({
        type: 'session.started',
        stream: `session/${session_id}`,
        data: { session_id, display_name: 'Planck', ttl_seconds: 4 * 3600 },
      })),
    );
    // Real concurrent starts on separate handles.
    const handles = await Promise.all(Array.from({ length: CONCURRENCY }, () => w.harness.openAnother()));
    const started = await Promise.all(handles.map((store) => w.start({}, store)));
    expect(new Set(started.map((s) => s.id)).size).toBe(CONCURRENCY);
    // End two, then race more starts into the freed names.
    await w.end(started[0]!);
    await w.end(started[1]!);
    const more = await Promise.all(handles.slice(0, 3).map((store) => w.start({}, store)));

    // At every log position, the names held by non-ended sessions are distinct.
    let state = initCoordination();
    for (const event of await w.events()) {
      state = applyCoordination(state, event);
      const held = [...state.sessions.values()].filter((s) => s.stored_status === 'active').map((s) => s.display_name);
      expect(new Set(held).size, `names at seq ${event.seq}: ${held.join(', ')}`).toBe(held.length);
    }
    // Each start printed the name the fold settled for it, and the fold agrees with itself.
    const final = await w.state();
    for (const s of [...started, ...more]) expect(final.sessions.get(s.id)?.display_name).toBe(s.name);
    expect(raced.map((id) => final.sessions.get(id)?.display_name)).toEqual(['Planck', 'Planck-2']);
    const live = [...final.sessions.values()].filter((s) => s.stored_status === 'active').map((s) => s.display_name);
    expect(live.length).toBe(2 + CONCURRENCY - 2 + 3);
    expect(new Set(live).size).toBe(live.length);
    expect(final.findings).toEqual([]);
  },
};
