import { expect } from 'vitest';
import { SYSTEM_IDENTITY } from '../../../events/coordination/identities.js';
import { resolveToken } from '../../../projections/coordination/sessions.js';
import type { SessionRecord } from '../../../projections/coordination/state.js';
import { CoordinationErrorCode } from '../../coordination/errors.js';
import { resolveRecipients, type SendSignalInput } from '../../coordination/send.js';
import { coordinationSettingsFrom, type CoordinationSettings } from '../../coordination/settings.js';
import { ErrorCode, isBatonError } from '../../errors.js';
import type { CasesOf } from './cases.js';
import { type Who, type CaseBody, idsOf, NOW, WS } from './world.js';

/** The Routing cases of the A2A conformance suite (coordination.md §13). */
export const ROUTING_CASES: CasesOf<'Routing', CaseBody> = {
  async R1(w) {
    const plain = await w.start();
    const named = await w.start({ agent_identity: 'codex:implementer:host42' });
    const sender = await w.start();
    const a = await w.send(sender, { message: 'by id', to: [plain.id] });
    expect(a.signal.recipients).toEqual([plain.id]);
    const b = await w.send(sender, { message: 'by id, with identity', to: [named.id] });
    expect(b.signal.recipients).toEqual(['codex:implementer:host42']);
    // An ended session's id no longer resolves.
    await w.end(plain);
    await w.refusedWithNothingAppended(CoordinationErrorCode.UNKNOWN_RECIPIENT, () => w.send(sender, { message: 'gone', to: [plain.id] }));
  },

  async R2(w) {
    const reviewer = await w.start({ agent_identity: 'reviewer:docs:a' });
    const second = await w.start({ agent_identity: 'reviewer:docs:a' });
    const sender = await w.start();
    // Live (even shared by two sessions: one identity, not ambiguous).
    expect((await w.send(sender, { message: 'live', to: ['reviewer:docs:a'] })).signal.recipients).toEqual(['reviewer:docs:a']);
    await w.end(reviewer);
    await w.end(second);
    // Known offline: still addressable by the identity; the display name and session id are not.
    const offline = await w.send(sender, { message: 'offline', to: ['reviewer:docs:a'] });
    expect(offline.signal.recipients).toEqual(['reviewer:docs:a']);
    await w.refusedWithNothingAppended(CoordinationErrorCode.UNKNOWN_RECIPIENT, () => w.send(sender, { message: 'x', to: [reviewer.name] }));
    await w.refusedWithNothingAppended(CoordinationErrorCode.UNKNOWN_RECIPIENT, () => w.send(sender, { message: 'x', to: [reviewer.id] }));
    // An identity no session ever had is unknown.
    await w.refusedWithNothingAppended(CoordinationErrorCode.UNKNOWN_RECIPIENT, () => w.send(sender, { message: 'x', to: ['reviewer:docs:b'] }));
    // A restarted reviewer with the identity finds the offline signal unread.
    const restarted = await w.start({ agent_identity: 'reviewer:docs:a' });
    expect(idsOf((await w.inbox(restarted, { mark: false })).signals)).toContain(offline.signal.signal_id);
  },

  async R3(w) {
    const plain = await w.start();
    const named = await w.start({ agent_identity: 'reviewer:docs:a' });
    const sender = await w.start();
    expect([plain.name, named.name, sender.name]).toEqual(['Planck', 'Noether', 'Curie']);
    const a = await w.send(sender, { message: 'to a name', to: ['Planck'] });
    expect(a.signal.recipients).toEqual([plain.id]);
    const b = await w.send(sender, { message: 'to a name with identity', to: ['Noether'] });
    expect(b.signal.recipients).toEqual(['reviewer:docs:a']);
    expect(a.recipient_names).toEqual([{ identity: plain.id, display_name: 'Planck' }]);
    // Display names are case-sensitive.
    await w.refusedWithNothingAppended(CoordinationErrorCode.UNKNOWN_RECIPIENT, () => w.send(sender, { message: 'x', to: ['planck'] }));
    // Reading for a display name records the canonical identity too.
    await w.inbox(undefined, { for: 'Planck' });
    const persisted = (await w.events()).filter((e) => e.type === 'signal.sent' || e.type === 'receipt.recorded');
    expect(persisted.length).toBe(3);
    for (const event of persisted) {
      const text = JSON.stringify(event.data);
      for (const name of ['Planck', 'Noether', 'Curie']) expect(text, `${event.type} ${text}`).not.toContain(name);
    }
    expect((await w.receipts()).map((r) => r.data.reader_identity)).toEqual([plain.id]);
  },

  async R4(w) {
    const plain = await w.start();
    const sender = await w.start();
    expect(plain.identity).toBe(plain.id);
    const d = await w.send(sender, { message: 'hello', to: [plain.name] });
    expect(d.signal.recipients).toEqual([plain.id]);
    expect(d.signal.target_agent).toBe(plain.id);
    expect(d.signal.sender_identity).toBe(sender.id);
    const inbox = await w.inbox(plain, {});
    expect(inbox.reader_identity).toBe(plain.id);
    expect(idsOf(inbox.signals)).toEqual([d.signal.signal_id]);
    expect((await w.receipts()).map((r) => [r.data.reader_identity, r.data.session_id])).toEqual([[plain.id, plain.id]]);
  },

  async R5(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    for (const to of [['Nobody'], ['Planck', 'Nobody'], ['session_000000000000000000000000'], ['nobody:at:all'], ['Planck-2']]) {
      const error = await w.refusedWithNothingAppended(CoordinationErrorCode.UNKNOWN_RECIPIENT, () => w.send(s2, { message: 'x', to }));
      expect(error.exitCode).toBe(2);
    }
    // The reader side fails closed the same way.
    await w.refusedWithNothingAppended(CoordinationErrorCode.UNKNOWN_RECIPIENT, () => w.inbox(s1, { for: 'Nobody' }));
    expect(await w.signals()).toEqual([]);
  },

  /**
   * R6 cannot be produced through the log: session ids are unique, an agent identity is one
   * identity however many sessions share it, and the fold keeps display names distinct among all
   * non-ended sessions at every seq (§3) — so no stage of §6.2 can match two identities. The case
   * checks (1) the fold's guarantee with two starts that recorded the same name (a race), (2) the
   * resolution function on a roster where a token is ambiguous (built directly, as an adapter
   * bug or a future resolution stage could make it), which fails AMBIGUOUS_RECIPIENT naming both
   * identities, and (3) that a resolution failure inside `sendSignal` persists nothing (the same
   * code path throws both failures before anything is appended).
   */
  async R6(w) {
    const sender = await w.start();
    // (1) Two session.started records that asked for the same display name, as two racing starts write them.
    const ids = ['session_0000000000000000000000a1', 'session_0000000000000000000000a2'];
    await w.append(
      ids.map((session_id) => ({
        type: 'session.started',
        stream: `session/${session_id}`,
        data: { session_id, display_name: 'Dirac', ttl_seconds: 4 * 3600 },
      })),
    );
    const state = await w.state();
    expect(ids.map((id) => state.sessions.get(id)?.display_name)).toEqual(['Dirac', 'Dirac-2']);
    expect((await w.send(sender, { message: 'one', to: ['Dirac'] })).signal.recipients).toEqual([ids[0]]);
    expect((await w.send(sender, { message: 'two', to: ['Dirac-2'] })).signal.recipients).toEqual([ids[1]]);

    // (2) An ambiguous roster: two live sessions answering to one display name.
    const ambiguous = await w.state();
    const first = ambiguous.sessions.get(ids[0]!)!;
    const twin: SessionRecord = { ...ambiguous.sessions.get(ids[1]!)!, display_name: 'Dirac' };
    ambiguous.sessions.set(twin.session_id, twin);
    expect(first.display_name).toBe('Dirac');
    const resolution = resolveToken(ambiguous, NOW, 'Dirac');
    expect(resolution).toEqual({ ok: false, failure: 'ambiguous', candidates: ids });
    let thrown: unknown;
    try {
      resolveRecipients(ambiguous, NOW, ['Dirac']);
    } catch (error) {
      thrown = error;
    }
    expect(isBatonError(thrown) && thrown.code).toBe(CoordinationErrorCode.AMBIGUOUS_RECIPIENT);
    expect(isBatonError(thrown) && thrown.exitCode).toBe(2);
    expect(isBatonError(thrown) && thrown.details).toEqual({ field: 'to', token: 'Dirac', candidates: ids });

    // (3) A token that fails resolution in a send persists nothing, even after valid ones.
    await w.refusedWithNothingAppended(CoordinationErrorCode.UNKNOWN_RECIPIENT, () => w.send(sender, { message: 'x', to: ['Dirac', 'Dirac-3'] }));
  },

  async R7(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start({ agent_identity: 'reviewer:docs:a' });
    const s3 = await w.start();
    const sent = await w.send(s0, { message: 'both of you', to: [s1.name, s1.id, s2.name, 'reviewer:docs:a', s2.id, s1.name] });
    expect(sent.signal.recipients).toEqual([s1.id, 'reviewer:docs:a']);
    expect(sent.signal.target_agent).toBe(s1.id);
    expect(idsOf(await w.visible(s1.identity))).toEqual([sent.signal.signal_id]);
    expect(idsOf(await w.visible(s2.identity))).toEqual([sent.signal.signal_id]);
    expect(idsOf(await w.visible(s3.identity))).toEqual([]);
    // Each recipient reads it independently; one signal stored.
    expect((await w.inbox(s1, {})).marked).toBe(1);
    expect((await w.inbox(s2, {})).marked).toBe(1);
    expect((await w.signals()).length).toBe(1);
  },

  async R8(w) {
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start({ agent_identity: 'reviewer:docs:a' });
    const one = await w.send(s0, { message: 'one', to: [s1.id] });
    const two = await w.send(s0, { message: 'two', to: ['reviewer:docs:a', s1.id] });
    const broadcast = await w.send(s0, { message: 'all' });
    const reply = await w.send(s2, { message: 'reply', reply_to: two.signal.signal_id });
    expect([one, two, reply].map((s) => [s.signal.recipients[0], s.signal.target_agent])).toEqual([
      [s1.id, s1.id],
      ['reviewer:docs:a', 'reviewer:docs:a'],
      [s0.id, s0.id],
    ]);
    expect('target_agent' in broadcast.signal).toBe(false);
    // The stored records say the same.
    const stored = await w.signals();
    expect(stored.map((s) => ('target_agent' in s.data ? s.data.target_agent : 'absent'))).toEqual([s1.id, 'reviewer:docs:a', 'absent', s0.id]);
    for (const s of stored) expect(s.data.target_agent).toBe(s.data.recipients[0]);
  },

  async R9(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    if (w.hosted) {
      // Without a workspace id the hosted profile refuses to send at all (config or flag).
      const noWorkspace: CoordinationSettings = { ...w.settings, workspaceId: undefined };
      await w.refusedWithNothingAppended(CoordinationErrorCode.WORKSPACE_ID_REQUIRED, () =>
        w.send(s2, { message: 'x', to: [s1.id] }, { settings: noWorkspace }),
      );
      let configError: unknown;
      try {
        coordinationSettingsFrom('a2a: {profile: hosted}\n');
      } catch (error) {
        configError = error;
      }
      expect(isBatonError(configError) && configError.code).toBe(CoordinationErrorCode.WORKSPACE_ID_REQUIRED);
      // Another workspace id than the configured one is refused; none given → the configured one.
      await w.refusedWithNothingAppended(ErrorCode.INVALID_INPUT, () => w.send(s2, { message: 'x', to: [s1.id], workspace_id: 'ws-other' }));
      const filled = await w.send(s2, { message: 'hosted', to: [s1.id] });
      expect(filled.signal.workspace_id).toBe(WS);
      const explicit = await w.send(s2, { message: 'hosted, explicit', to: [s1.id], workspace_id: WS });
      expect(explicit.signal.workspace_id).toBe(WS);
      // A record another writer stored without one is no signal of this workspace.
      const { workspace_id: _ws, ...bare } = w.rawSignal({
        signal_id: 'sig-0000r9aa',
        thread_id: 't-r9',
        recipients: [s1.identity],
        target_agent: s1.identity,
        interrupt_class: 'priority',
      });
      await w.append([{ type: 'signal.sent', stream: 'thread/t-r9', data: bare }]);
      expect(idsOf(await w.visible(s1.identity))).toEqual([filled.signal.signal_id, explicit.signal.signal_id]);
    } else {
      const accepted = await w.send(s2, { message: 'local', to: [s1.id] });
      expect('workspace_id' in accepted.signal).toBe(false);
      expect('workspace_id' in (await w.signals())[0]!.data).toBe(false);
      // Recorded when given, whatever it is.
      expect((await w.send(s2, { message: 'local, tagged', to: [s1.id], workspace_id: 'ws-anything' })).signal.workspace_id).toBe('ws-anything');
      expect((await w.visible(s1.identity)).length).toBe(2);
    }
  },

  async R10(w) {
    await w.withWus('WU-1');
    const s0 = await w.start();
    const s1 = await w.start();
    const s2 = await w.start();
    const parent = await w.send(s2, { message: 'proposal', to: [s1.name], wu: 'WU-1', lane: 'L1', role: 'reviewer', intent: 'PROPOSE', requires_ack: true });
    expect(parent.signal.initiative).toBe('INIT-1');
    const reply = await w.send(s1, { message: 'ok', reply_to: parent.signal.signal_id, intent: 'AGREE' });
    expect(reply.signal).toMatchObject({
      thread_id: parent.signal.thread_id,
      reply_to: parent.signal.signal_id,
      recipients: [s2.id],
      target_agent: s2.id,
      wu_id: 'WU-1',
      initiative: 'INIT-1',
      lane: 'L1',
      role: 'reviewer',
      interrupt_class: 'priority',
      requires_ack: false,
    });
    expect((await w.signals()).find((s) => s.data.signal_id === reply.signal.signal_id)!.stream).toBe(`thread/${parent.signal.thread_id}`);
    // Given axes and recipients win over the parent's.
    const steered = await w.send(s1, { message: 'ok, S0 too', reply_to: parent.signal.signal_id, to: [s0.id], lane: 'L2' });
    expect(steered.signal).toMatchObject({ recipients: [s0.id], lane: 'L2', wu_id: 'WU-1' });
    // The parent sender is the replier itself (or system): the parent's recipients minus the replier.
    const fromSystem = await w.send(undefined, { message: 'system asks', to: [s1.id, s2.id] });
    expect(fromSystem.signal.sender_identity).toBe(SYSTEM_IDENTITY);
    expect((await w.send(s1, { message: 'answer', reply_to: fromSystem.signal.signal_id })).signal.recipients).toEqual([s2.id]);
    const own = await w.send(s0, { message: 'note', to: [s1.id] });
    expect((await w.send(s0, { message: 'follow-up', reply_to: own.signal.signal_id })).signal.recipients).toEqual([s1.id]);
  },

  async R11(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    const parent = await w.send(s2, { message: 'proposal', to: [s1.id], intent: 'PROPOSE' });
    const side = await w.send(s1, { message: 'side', reply_to: parent.signal.signal_id, thread: 'side-1' });
    expect(side.signal).toMatchObject({ thread_id: 'side-1', reply_to: parent.signal.signal_id, recipients: [s2.id] });
    expect((await w.signals()).find((s) => s.data.signal_id === side.signal.signal_id)!.stream).toBe('thread/side-1');
    expect(idsOf(await w.visible(s2.identity, { thread: 'side-1' }))).toEqual([side.signal.signal_id]);
    // An unknown parent is UNKNOWN_ID, nothing appended.
    await w.refusedWithNothingAppended(ErrorCode.UNKNOWN_ID, () => w.send(s1, { message: 'x', reply_to: 'sig-00000000' }));
  },

  async R12(w) {
    const s1 = await w.start();
    const s2 = await w.start();
    const classes = async (input: SendSignalInput, as: Who = s2): Promise<string> => (await w.send(as, input)).signal.interrupt_class;
    const root = await w.send(s2, { message: 'directed root', to: [s1.id] });
    expect(root.signal.interrupt_class).toBe('priority');
    expect(await classes({ message: 'broadcast' })).toBe('advisory');
    expect(await classes({ message: 'directed, ack', to: [s1.id], requires_ack: true })).toBe('priority');
    expect(await classes({ message: 'directed reply', reply_to: root.signal.signal_id }, s1)).toBe('priority');
    const b = await w.send(s1, { message: 'broadcast root' });
    expect(await classes({ message: 'reply to my own broadcast', reply_to: b.signal.signal_id }, s1)).toBe('advisory');
    // The explicit class always wins.
    expect(await classes({ message: 'x', to: [s1.id], interrupt_class: 'advisory' })).toBe('advisory');
    expect(await classes({ message: 'x', interrupt_class: 'interrupt' })).toBe('interrupt');
  },
};
