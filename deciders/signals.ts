import type { ReceiptRecordedData } from '../events/coordination/receipt.js';
import { defaultInterruptClass, SignalSentData } from '../events/coordination/signal.js';
import { A2A_SCHEMA_VERSION, DeliveryState, Intent, ReceiptVia, SYSTEM_IDENTITY, type InterruptClass } from '../events/coordination/vocabulary.js';
import { actingIdentity } from '../projections/coordination/sessions.js';
import { receiptState } from '../projections/coordination/signals.js';
import { idempotencyScope, type CoordinationState, type SignalRecord } from '../projections/coordination/state.js';
import type { Decision, ProposedEvent } from './decision.js';
import { ErrorCode } from './error-codes.js';
import { recipientsOf } from './recipients.js';
import { Refusal, refuseField, refuseInput } from './refusal.js';

/**
 * `mem signal` (coordination.md §6) as a decider: the checked input, who sends and the fresh ids
 * (drawn by the shell) against the coordination fold, answered with the `signal.sent` and the
 * receipts a vote promotes (§7.4), one batch; or a repeat of an idempotency key, which appends
 * nothing and names the first signal; or a refusal naming the input at fault.
 */
export const SignalErrorCode = {
  SESSION_ENDED: 'SESSION_ENDED',
  SELF_ADDRESSED: 'SELF_ADDRESSED',
  WORKSPACE_ID_REQUIRED: 'WORKSPACE_ID_REQUIRED',
} as const;

export interface SendSignal {
  /** Trimmed. */
  message: string;
  intent?: Intent | undefined;
  to?: readonly string[] | undefined;
  wu?: string | undefined;
  initiative?: string | undefined;
  lane?: string | undefined;
  role?: string | undefined;
  requires_ack?: boolean | undefined;
  reply_to?: string | undefined;
  thread?: string | undefined;
  interrupt_class?: InterruptClass | undefined;
  idempotency_key?: string | undefined;
  workspace_id?: string | undefined;
  /** The acting session and the environment's identity: who sends. */
  session: string | undefined;
  envIdentity: string | undefined;
  now: string;
  /** Fresh ids the shell drew: the signal's, and the thread's when it starts one. */
  signalId: string;
  threadId: string;
  /** The hosted profile's configured workspace id (null: not hosted). */
  hosted: { workspaceId: string | undefined } | null;
  /** The store's key for (sender, idempotency key): a digest the shell computes. */
  storeKey: (sender: string, key: string) => string;
}

export type SendOutcome = { sent: SignalSentData; sender: string; promoted: number } | { duplicate: SignalRecord };

const VOTES: readonly string[] = [Intent.AGREE, Intent.REJECT, Intent.COUNTER];

/** The checks that need no fold: a vote answers a thread; hosted signals carry the configured workspace. */
function checkInput(command: SendSignal, intent: Intent): string | undefined {
  if (VOTES.includes(intent) && command.reply_to === undefined && command.thread === undefined) {
    throw refuseInput(`${intent} is a vote in a thread: give --reply-to SIG or --thread T`, 'intent');
  }
  let workspace = command.workspace_id;
  if (command.hosted !== null) {
    const configured = command.hosted.workspaceId;
    if (workspace !== undefined && workspace !== configured) {
      throw refuseInput(`must be the configured a2a.workspace_id "${String(configured)}" (hosted profile), got "${workspace}"`, 'workspace_id');
    }
    workspace ??= configured;
    if (workspace === undefined)
      throw new Refusal(SignalErrorCode.WORKSPACE_ID_REQUIRED, 'a2a.workspace_id: the hosted profile needs a workspace id', { field: 'a2a.workspace_id' });
  }
  return workspace;
}

/** The acting session must exist and not be ended (§6.1). */
export function requireOpenSender(state: CoordinationState, session: string | undefined): void {
  if (session === undefined) return;
  const record = state.sessions.get(session);
  if (!record) throw refuseField(ErrorCode.UNKNOWN_ID, 'session', () => `Session ${session} not found`, { session_id: session });
  if (record.stored_status !== 'active') {
    throw new Refusal(SignalErrorCode.SESSION_ENDED, `Session ${session} has ended (${record.stored_status})`, { session_id: session });
  }
}

function sameContent(stored: SignalRecord, message: string, intent: string, replyTo: string | undefined): boolean {
  return stored.data.message === message && stored.data.intent === intent && stored.data.reply_to === replyTo;
}

export function decideSend(command: SendSignal, state: CoordinationState): Decision<SendOutcome> {
  const intent = command.intent ?? Intent.INFO;
  const workspace = checkInput(command, intent);
  requireOpenSender(state, command.session);
  const sender = actingIdentity(state, command.session, command.envIdentity);
  const key = command.idempotency_key;
  if (key !== undefined) {
    const index = state.idempotency.get(idempotencyScope(sender, key));
    if (index !== undefined) {
      const stored = state.signals[index]!;
      if (!sameContent(stored, command.message, intent, command.reply_to)) {
        throw new Refusal(ErrorCode.IDEMPOTENCY_CONFLICT, `idempotency key "${key}" was already used with different content`, { idempotency_key: key });
      }
      return { events: [], expected: {}, outcome: { duplicate: stored } };
    }
  }
  const signal = buildSignal(state, command, { intent, sender, workspace });
  const receipts = promotions(state, {
    thread: signal.thread_id,
    reader: sender,
    intent,
    cause: signal.signal_id,
    now: command.now,
    session: command.session ?? null,
  });
  const events: ProposedEvent[] = [
    { type: 'signal.sent', stream: `thread/${signal.thread_id}`, data: signal },
    ...receipts.map((r) => ({ type: 'receipt.recorded', stream: `thread/${r.thread_id}`, data: r })),
  ];
  return {
    events,
    expected: {},
    idempotencyKey: key !== undefined ? command.storeKey(sender, key) : undefined,
    outcome: { sent: signal, sender, promoted: receipts.length },
  };
}

/** The signal replied to, if any: it must exist. */
function parentOf(state: CoordinationState, replyTo: string | undefined): SignalRecord | undefined {
  if (replyTo === undefined) return undefined;
  const parent = state.signals[state.signal_index.get(replyTo) ?? -1];
  if (!parent) throw refuseField(ErrorCode.UNKNOWN_ID, 'reply_to', () => `Signal ${replyTo} not found`, { signal_id: replyTo });
  return parent;
}

/** The WU and initiative a signal is about: given, or the parent's; both must be known. */
function subjectOf(
  state: CoordinationState,
  command: SendSignal,
  parent: SignalRecord | undefined,
): { wu: string | undefined; initiative: string | undefined } {
  const wu = command.wu ?? parent?.data.wu_id;
  let initiative = command.initiative ?? (command.wu === undefined ? parent?.data.initiative : undefined);
  if (command.wu !== undefined) {
    const known = state.wus.get(command.wu);
    if (!known) throw refuseField(ErrorCode.UNKNOWN_ID, 'wu', (name) => `${name}: WU ${command.wu} not found`, { wu_id: command.wu });
    initiative ??= known.initiative ?? undefined;
  }
  if (command.initiative !== undefined && !state.initiatives.has(command.initiative)) {
    throw refuseField(ErrorCode.UNKNOWN_ID, 'initiative', (name) => `${name}: Initiative ${command.initiative} not found`, { initiative: command.initiative });
  }
  return { wu, initiative };
}

/** Who receives it: the resolved `to`, else the parent's other side, else nobody (a broadcast). */
function recipientsFor(state: CoordinationState, command: SendSignal, parent: SignalRecord | undefined, sender: string): string[] {
  let recipients: string[] = [];
  if (command.to !== undefined) {
    recipients = recipientsOf(
      state,
      command.now,
      command.to.flatMap((t) => t.split(',')).filter((t) => t.trim() !== ''),
    );
    if (recipients.includes(sender)) {
      throw refuseField(SignalErrorCode.SELF_ADDRESSED, 'to', (name) => `${name}: ${sender} is the sender; a session cannot signal itself`, {
        identity: sender,
      });
    }
  } else if (parent) {
    const parentSender = parent.data.sender_identity;
    recipients = parentSender !== sender && parentSender !== SYSTEM_IDENTITY ? [parentSender] : parent.data.recipients.filter((r) => r !== sender);
  }
  if (command.requires_ack && recipients.length === 0) throw refuseInput('needs at least one recipient (a broadcast cannot be acknowledged)', 'requires_ack');
  return recipients;
}

function buildSignal(state: CoordinationState, command: SendSignal, fixed: { intent: Intent; sender: string; workspace: string | undefined }): SignalSentData {
  const parent = parentOf(state, command.reply_to);
  const { wu, initiative } = subjectOf(state, command, parent);
  const recipients = recipientsFor(state, command, parent, fixed.sender);
  const lane = command.lane ?? parent?.data.lane;
  const role = command.role ?? parent?.data.role;
  const signal: SignalSentData = {
    schema_version: A2A_SCHEMA_VERSION,
    signal_id: command.signalId,
    sender_identity: fixed.sender,
    recipients,
    ...(recipients.length > 0 ? { target_agent: recipients[0] } : {}),
    ...(fixed.workspace !== undefined ? { workspace_id: fixed.workspace } : {}),
    thread_id: command.thread ?? parent?.data.thread_id ?? command.threadId,
    ...(command.reply_to !== undefined ? { reply_to: command.reply_to } : {}),
    intent: fixed.intent,
    interrupt_class: command.interrupt_class ?? defaultInterruptClass(recipients),
    requires_ack: command.requires_ack ?? false,
    message: command.message,
    ...(command.idempotency_key !== undefined ? { idempotency_key: command.idempotency_key } : {}),
    origin: 'local',
    ...(wu !== undefined ? { wu_id: wu } : {}),
    ...(initiative !== undefined ? { initiative } : {}),
    ...(lane !== undefined ? { lane } : {}),
    ...(role !== undefined ? { role } : {}),
    created_at: command.now,
    sender_session_id: command.session ?? null,
  };
  return SignalSentData.parse(signal);
}

export interface Vote {
  thread: string;
  reader: string;
  intent: string;
  /** The vote's own signal id. */
  cause: string;
  now: string;
  session: string | null;
}

/** Receipts an AGREE/REJECT by `reader` in `thread` promotes (§7.4): its signals to the reader, not yet in that state. */
export function promotions(state: CoordinationState, vote: Vote): ReceiptRecordedData[] {
  if (vote.intent !== Intent.AGREE && vote.intent !== Intent.REJECT) return [];
  const target = vote.intent === Intent.AGREE ? DeliveryState.acked : DeliveryState.rejected;
  const out: ReceiptRecordedData[] = [];
  for (const index of state.threads.get(vote.thread) ?? []) {
    const s = state.signals[index]!.data;
    if (s.sender_identity === vote.reader || !s.recipients.includes(vote.reader)) continue;
    if (receiptState(state, s.signal_id, vote.reader) === target) continue;
    out.push({
      signal_id: s.signal_id,
      reader_identity: vote.reader,
      read_at: vote.now,
      delivery_state: target,
      thread_id: vote.thread,
      session_id: vote.session,
      via: ReceiptVia.reply,
      cause_signal_id: vote.cause,
    });
  }
  return out;
}
