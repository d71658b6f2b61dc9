import { InterruptClass, ReceiptVia, SessionStatus } from '../../events/coordination/identities.js';
import { toA2ASignalV1, type A2ASignalV1 } from '../../events/coordination/signal.js';
import { displayNameFor, isLive, readerIdentityOf } from '../../projections/coordination/sessions.js';
import { inboxRecords, isVisibleTo, pendingHookRecords, receiptState } from '../../projections/coordination/signals.js';
import { applyCoordination, type CoordinationState, type SessionRecord, type SignalRecord } from '../../projections/coordination/state.js';
import { BatonError, ErrorCode } from '../errors.js';
import type { Subscription } from '../store/contract.js';
import { actingIn, requireLiveActing } from './acting.js';
import { actorOf, loadState, type CoordinationEnv } from './env.js';
import { CoordinationErrorCode } from './errors.js';
import { recordReceipts } from './record-receipts.js';
import { enqueuePending, takePending } from './pending-queue.js';
import { readFilter } from './settings.js';

/** Delivery to a session: `hooks drain` (§9.3), `mem watch` (§9.4), and the prompt (§9.5). */
export interface DeliveredSignal {
  event: 'signal:received';
  signal: A2ASignalV1;
  reply_commands: string[];
  /** For the human prompt: the sender's live display name. */
  sender_display_name: string | null;
}

export function replyCommands(signal: A2ASignalV1): string[] {
  if (!signal.requires_ack) return [];
  return [
    `baton mem signal '<answer>' --reply-to ${signal.signal_id} --intent AGREE`,
    `baton mem signal '<reason>' --reply-to ${signal.signal_id} --intent REJECT`,
  ];
}

export function renderPrompt(d: DeliveredSignal): string {
  const s = d.signal;
  const header = [
    `[signal:received] ${s.signal_id} from ${s.sender_identity}${d.sender_display_name ? ` (${d.sender_display_name})` : ''}`,
    s.intent,
    s.interrupt_class,
    ...(s.requires_ack ? ['ACK required'] : []),
    `thread ${s.thread_id}`,
    ...(s.wu_id !== undefined ? [s.wu_id] : []),
  ].join(' · ');
  const lines = [header, ...s.message.split('\n').map((l) => `    ${l}`)];
  if (s.interrupt_class === InterruptClass.interrupt) lines.push('Handle this before continuing your current step.');
  lines.push(...d.reply_commands);
  return lines.join('\n');
}

function delivered(state: CoordinationState, now: string, record: SignalRecord): DeliveredSignal {
  const signal = toA2ASignalV1(record.data);
  return { event: 'signal:received', signal, reply_commands: replyCommands(signal), sender_display_name: displayNameFor(state, now, signal.sender_identity) };
}

/**
 * The session X names (session id, agent identity or display name). Watch takes live sessions only;
 * drain also abandoned ones. An identity several such sessions share is AMBIGUOUS_SESSION.
 * Returns null for an ended session named by its id (drain: nothing to do).
 */
export function resolveDeliverySession(state: CoordinationState, now: string, token: string, acceptAbandoned: boolean): SessionRecord | null {
  const usable = (s: SessionRecord): boolean => (acceptAbandoned ? s.stored_status === SessionStatus.active : isLive(s, now));
  const byId = state.sessions.get(token);
  if (byId) {
    if (byId.stored_status !== SessionStatus.active) return null;
    if (usable(byId)) return byId;
  }
  const candidates = [...state.sessions.values()].filter(usable);
  for (const match of [candidates.filter((s) => s.agent_identity === token), candidates.filter((s) => s.display_name === token)]) {
    if (match.length > 1) {
      const ids = match.map((s) => s.session_id);
      const say = (name: string): string => `${name}: "${token}" names ${match.length} live sessions (${ids.join(', ')}); use the session id`;
      throw sessionFault(CoordinationErrorCode.AMBIGUOUS_SESSION, say, { sessions: ids });
    }
    if (match.length === 1) return match[0]!;
  }
  const message = `Session ${token} not found (no ${acceptAbandoned ? 'non-ended' : 'live'} session has that id, identity or display name)`;
  throw sessionFault(ErrorCode.UNKNOWN_ID, () => message, { session: token });
}

/** A refusal about the session delivered to, the input `session` (the CLI's `--session`). */
function sessionFault(code: string, say: (name: string) => string, details: Record<string, unknown>): BatonError {
  return new BatonError(code, say('session'), { field: 'session', ...details }, { field: 'session', say });
}

export interface DrainResult {
  session_id: string | null;
  reader_identity: string | null;
  events: DeliveredSignal[];
}

/** `hooks drain`: take the queue, reconcile with the log, return the prompt, then record receipts. */
export async function drainHook(env: CoordinationEnv, token: string, print: (result: DrainResult) => void): Promise<DrainResult> {
  const { state } = await loadState(env);
  const session = resolveDeliverySession(state, env.now, token, true);
  if (!session) {
    const result = { session_id: token, reader_identity: null, events: [] };
    print(result);
    return result;
  }
  // Acting as a session (a library caller's env), the receipts need it live: refused before anything is shown.
  requireLiveActing(env, state);
  const reader = readerIdentityOf(session);
  const queued = env.pendingDir !== undefined ? takePending(env.pendingDir, session.session_id) : [];
  const records = pendingHookRecords(state, reader, readFilter(env.settings), new Set(queued.map((q) => q.signal_id)));
  const result: DrainResult = { session_id: session.session_id, reader_identity: reader, events: records.map((r) => delivered(state, env.now, r)) };
  // Print before recording: a crash in between repeats a signal, never loses one.
  print(result);
  if (records.length > 0) {
    const shown = { signalIds: records.map((r) => r.data.signal_id), reader, session: session.session_id, via: ReceiptVia.hook };
    await recordReceipts(
      { store: env.store, catalog: env.catalog, actor: actorOf(env), now: env.now, acting: actingIn(env, (s: CoordinationState) => s) },
      state,
      shown,
    );
  }
  return result;
}

export interface WatchDelivery extends DeliveredSignal {
  session_id: string;
  reader_identity: string;
  latency_ms: number;
  /** The clock value at delivery. */
  at: string;
}

export interface WatchOptions {
  once: boolean;
  /** Read at each delivery (BATON_NOW fixes it). */
  clock: () => string;
  onDelivery: (delivery: WatchDelivery) => void;
}

export interface WatchHandle {
  session: SessionRecord;
  /** Resolves when the watch stops: after the catch-up with `once`, or when the session ends. */
  done: Promise<void>;
  close(): Promise<void>;
}

/**
 * `mem watch`: deliver the catch-up set (what `mem inbox --for X` lists unread), then every newly
 * appended visible signal, each once per run; a delivered receipt after each delivery makes a
 * restart skip what was already printed. Never heartbeats for the session.
 */
export async function watchSignals(env: CoordinationEnv, token: string, options: WatchOptions): Promise<WatchHandle> {
  const { state, seq } = await loadState(env);
  const session = resolveDeliverySession(state, env.now, token, false);
  if (!session) throw sessionFault(ErrorCode.UNKNOWN_ID, () => `Session ${token} has ended`, {});
  // The receipts record the env's actor: acting as a session, that session must be live (checked again at each append).
  requireLiveActing(env, state);
  const acting = actingIn(env, (s: CoordinationState) => s);
  const reader = readerIdentityOf(session);
  const workspace = readFilter(env.settings);
  const sent = new Set<string>();
  let current = state;

  const deliver = async (records: readonly SignalRecord[]): Promise<void> => {
    if (records.length === 0) return;
    // Delivery = enqueue in the session's queue, drain it to stdout, then record receipts.
    let ids = records.map((r) => r.data.signal_id);
    if (env.pendingDir !== undefined) {
      enqueuePending(
        env.pendingDir,
        session.session_id,
        records.map((r) => ({ signal_id: r.data.signal_id, seq: r.seq })),
        options.clock(),
      );
      ids = takePending(env.pendingDir, session.session_id).map((e) => e.signal_id);
    }
    const due = [...new Set(ids)]
      .map((id) => current.signals[current.signal_index.get(id) ?? -1])
      .filter(
        (r): r is SignalRecord =>
          r !== undefined && !sent.has(r.data.signal_id) && isVisibleTo(r, reader, workspace) && receiptState(current, r.data.signal_id, reader) === null,
      )
      .sort((a, b) => a.seq - b.seq);
    if (due.length === 0) return;
    const at = options.clock();
    for (const record of due) {
      sent.add(record.data.signal_id);
      options.onDelivery({
        ...delivered(current, at, record),
        session_id: session.session_id,
        reader_identity: reader,
        latency_ms: Math.max(0, Date.parse(at) - Date.parse(record.data.created_at)),
        at,
      });
    }
    const shown = { signalIds: due.map((r) => r.data.signal_id), reader, session: session.session_id, via: ReceiptVia.watch };
    await recordReceipts({ store: env.store, catalog: env.catalog, actor: actorOf(env), now: at, acting }, current, shown);
  };

  await deliver(inboxRecords(state, { reader, workspace }));
  if (options.once) return { session, done: Promise.resolve(), close: async () => undefined };

  let finish!: () => void;
  let fail!: (error: unknown) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const subscription: Subscription = env.store.subscribe(
    seq + 1,
    async (stored) => {
      const event = env.catalog.upcast(stored);
      const before = current.signals.length;
      current = applyCoordination(current, event);
      if (event.type === 'session.ended' && current.sessions.get(session.session_id)?.stored_status !== SessionStatus.active) {
        finish();
        return;
      }
      const added = current.signals.slice(before).filter((r) => isVisibleTo(r, reader, workspace));
      await deliver(added);
    },
    { onError: (error) => fail(error) },
  );
  return {
    session,
    done: done.finally(() => subscription.close()),
    close: () => subscription.close(),
  };
}
