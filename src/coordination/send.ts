import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  DeliveryState,
  idempotencyKey,
  initiativeId,
  INTENTS,
  Intent,
  INTERRUPT_CLASSES,
  lane,
  MAX_MESSAGE_LENGTH,
  ReceiptVia,
  role,
  signalId,
  SYSTEM_IDENTITY,
  threadId,
  workspaceId,
  wuId,
  A2A_SCHEMA_VERSION,
  ClientType,
} from '../../events/coordination/identities.js';
import type { ReceiptRecordedData } from '../../events/coordination/receipt.js';
import { defaultInterruptClass, SignalSentData, toA2ASignalV1, type A2ASignalV1 } from '../../events/coordination/signal.js';
import { actingIdentity, isLive, readerIdentityOf } from '../../projections/coordination/sessions.js';
import { receiptState } from '../../projections/coordination/signals.js';
import { idempotencyScope, type CoordinationState, type SignalRecord } from '../../projections/coordination/state.js';
import type { NewEvent } from '../../events/envelope.js';
import { BatonError, ErrorCode, IdempotencyConflictError, invalidInput, isBatonError } from '../errors.js';
import { actorOf, loadState, type CoordinationEnv } from './env.js';
import { CoordinationErrorCode } from './errors.js';
import { newSignalId, newThreadId } from './ids.js';
import { parseInput } from './parse-input.js';
import { resolveRecipients } from './recipients.js';
import { enqueuePending } from './pending-queue.js';
import { A2AProfile } from './settings.js';

/** `mem signal` (coordination.md §6): validate, resolve, decide, append one batch, enqueue hooks. */
const text = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .refine((s) => s.trim().length > 0, 'must not be empty after trimming');

export const SendSignalInput = z.strictObject({
  message: z
    .string()
    .refine((s) => s.trim().length > 0, 'must not be empty after trimming')
    .refine((s) => s.trim().length <= MAX_MESSAGE_LENGTH, `must be at most ${MAX_MESSAGE_LENGTH} characters after trimming`),
  to: z.array(text(200)).optional(),
  wu: wuId.optional(),
  initiative: initiativeId.optional(),
  lane: lane.optional(),
  role: role.optional(),
  intent: z.enum(INTENTS, `must be one of ${INTENTS.join(', ')}`).optional(),
  requires_ack: z.boolean().optional(),
  reply_to: signalId.optional(),
  thread: threadId.optional(),
  interrupt_class: z.enum(INTERRUPT_CLASSES, `must be one of ${INTERRUPT_CLASSES.join(', ')}`).optional(),
  // §6.1: an optional string that is empty after trimming is an error (the stored key keeps its spaces).
  idempotency_key: idempotencyKey.refine((s) => s.trim().length > 0, 'must not be empty after trimming').optional(),
  workspace_id: workspaceId.optional(),
});
export type SendSignalInput = z.input<typeof SendSignalInput>;

/** Input field → the flag that carries it, so errors name what the user typed. */
export const SEND_FLAGS: Record<string, string> = {
  message: 'message',
  to: '--to',
  wu: '--wu',
  initiative: '--initiative',
  lane: '--lane',
  role: '--role',
  intent: '--intent',
  requires_ack: '--requires-ack',
  reply_to: '--reply-to',
  thread: '--thread',
  interrupt_class: '--interrupt-class',
  idempotency_key: '--idempotency-key',
  workspace_id: '--workspace-id',
};

export interface SendResult {
  seq: number;
  deduplicated: boolean;
  signal: A2ASignalV1;
  promoted_receipts: number;
  hook_enqueued: string[];
  /** For human output: recipients with their live display names. */
  recipient_names: { identity: string; display_name: string | null }[];
}

export { parseInput } from './parse-input.js';

/** The store-level idempotency key: both the sender and the key, so concurrent duplicates collapse there. */
export function storeIdempotencyKey(sender: string, key: string): string {
  return `a2a.signal/${createHash('sha256').update(`${sender}\n${key}`).digest('hex')}`;
}

/** The acting session must exist and not be ended (§6.1). */
export function requireActingSession(state: CoordinationState, session: string | undefined): void {
  if (session === undefined) return;
  const record = state.sessions.get(session);
  if (!record) throw new BatonError(ErrorCode.UNKNOWN_ID, `Session ${session} not found`, { field: '--session', session_id: session });
  if (record.stored_status !== 'active') {
    throw new BatonError(CoordinationErrorCode.SESSION_ENDED, `Session ${session} has ended (${record.stored_status})`, { session_id: session });
  }
}

export { resolveRecipients } from './recipients.js';

function sameContent(stored: SignalRecord, message: string, intent: string, replyTo: string | undefined): boolean {
  return stored.data.message === message && stored.data.intent === intent && stored.data.reply_to === replyTo;
}

function dedupResult(state: CoordinationState, now: string, record: SignalRecord): SendResult {
  return {
    seq: record.seq,
    deduplicated: true,
    signal: toA2ASignalV1(record.data),
    promoted_receipts: 0,
    hook_enqueued: [],
    recipient_names: namesOf(state, now, record.data.recipients),
  };
}

function namesOf(state: CoordinationState, now: string, identities: readonly string[]): { identity: string; display_name: string | null }[] {
  return identities.map((identity) => {
    const live = [...state.sessions.values()].find((s) => readerIdentityOf(s) === identity && isLive(s, now));
    return { identity, display_name: live?.display_name ?? null };
  });
}

/** Receipts an AGREE/REJECT by `reader` in `thread` promotes (§7.4). */
export function promotions(state: CoordinationState, thread: string, reader: string, intent: string, cause: string, now: string, session: string | null): ReceiptRecordedData[] {
  if (intent !== Intent.AGREE && intent !== Intent.REJECT) return [];
  const target = intent === Intent.AGREE ? DeliveryState.acked : DeliveryState.rejected;
  const out: ReceiptRecordedData[] = [];
  for (const index of state.threads.get(thread) ?? []) {
    const s = state.signals[index]!.data;
    if (s.sender_identity === reader || !s.recipients.includes(reader)) continue;
    if (receiptState(state, s.signal_id, reader) === target) continue;
    out.push({ signal_id: s.signal_id, reader_identity: reader, read_at: now, delivery_state: target, thread_id: thread, session_id: session, via: ReceiptVia.reply, cause_signal_id: cause });
  }
  return out;
}

export async function sendSignal(env: CoordinationEnv, rawInput: SendSignalInput): Promise<SendResult> {
  const input = parseInput(SendSignalInput, rawInput, SEND_FLAGS);
  const message = input.message.trim();
  const intent = input.intent ?? Intent.INFO;
  if ((intent === Intent.AGREE || intent === Intent.REJECT || intent === Intent.COUNTER) && input.reply_to === undefined && input.thread === undefined) {
    throw invalidInput(`${intent} is a vote in a thread: give --reply-to SIG or --thread T`, '--intent');
  }
  // Hosted: every signal carries the configured workspace id; a different one is refused.
  let workspace = input.workspace_id;
  if (env.settings.profile === A2AProfile.hosted) {
    if (workspace !== undefined && workspace !== env.settings.workspaceId) {
      throw invalidInput(`must be the configured a2a.workspace_id "${String(env.settings.workspaceId)}" (hosted profile), got "${workspace}"`, '--workspace-id');
    }
    workspace ??= env.settings.workspaceId;
    if (workspace === undefined) throw new BatonError(CoordinationErrorCode.WORKSPACE_ID_REQUIRED, 'a2a.workspace_id: the hosted profile needs a workspace id', { field: 'a2a.workspace_id' });
  }

  for (let attempt = 0; ; attempt++) {
    const { state } = await loadState(env);
    requireActingSession(state, env.session);
    const sender = actingIdentity(state, env.session, env.envIdentity);

    if (input.idempotency_key !== undefined) {
      const index = state.idempotency.get(idempotencyScope(sender, input.idempotency_key));
      if (index !== undefined) {
        const stored = state.signals[index]!;
        if (sameContent(stored, message, intent, input.reply_to)) return dedupResult(state, env.now, stored);
        throw new IdempotencyConflictError(input.idempotency_key);
      }
    }

    const built = buildSignal(state, env, input, { message, intent, sender, workspace });
    const receipts = promotions(state, built.thread_id, sender, intent, built.signal_id, env.now, env.session ?? null);
    const events: NewEvent[] = [
      { type: 'signal.sent', stream: `thread/${built.thread_id}`, data: built, actor: actorOf(env), at: env.now },
      ...receipts.map((r) => ({ type: 'receipt.recorded', stream: `thread/${r.thread_id}`, data: r, actor: actorOf(env), at: env.now })),
    ];
    try {
      const result = await env.store.append(events, input.idempotency_key !== undefined ? { idempotencyKey: storeIdempotencyKey(sender, input.idempotency_key) } : {});
      const stored = result.events[0]!;
      const signal = SignalSentData.parse(stored.data);
      const enqueued = result.deduplicated ? [] : enqueueHooks(env, state, signal, stored.seq);
      return {
        seq: stored.seq,
        deduplicated: result.deduplicated,
        signal: toA2ASignalV1(signal),
        promoted_receipts: result.deduplicated ? 0 : receipts.length,
        hook_enqueued: enqueued,
        recipient_names: namesOf(state, env.now, signal.recipients),
      };
    } catch (error) {
      // A concurrent send with the same key won the store's race: fold again and answer as a duplicate.
      if (isBatonError(error) && error.code === ErrorCode.IDEMPOTENCY_CONFLICT && attempt < 3) continue;
      throw error;
    }
  }
}

function buildSignal(
  state: CoordinationState,
  env: CoordinationEnv,
  input: z.infer<typeof SendSignalInput>,
  fixed: { message: string; intent: string; sender: string; workspace: string | undefined },
): SignalSentData {
  const parent = input.reply_to !== undefined ? state.signals[state.signal_index.get(input.reply_to) ?? -1] : undefined;
  if (input.reply_to !== undefined && !parent) throw new BatonError(ErrorCode.UNKNOWN_ID, `Signal ${input.reply_to} not found`, { field: '--reply-to', signal_id: input.reply_to });

  const wu = input.wu ?? parent?.data.wu_id;
  let initiative = input.initiative ?? (input.wu === undefined ? parent?.data.initiative : undefined);
  if (input.wu !== undefined) {
    const known = state.wus.get(input.wu);
    if (!known) throw new BatonError(ErrorCode.UNKNOWN_ID, `--wu: WU ${input.wu} not found`, { field: '--wu', wu_id: input.wu });
    initiative ??= known.initiative ?? undefined;
  }
  if (input.initiative !== undefined && !state.initiatives.has(input.initiative)) {
    throw new BatonError(ErrorCode.UNKNOWN_ID, `--initiative: Initiative ${input.initiative} not found`, { field: '--initiative', initiative: input.initiative });
  }

  let recipients: string[];
  if (input.to !== undefined) {
    recipients = resolveRecipients(state, env.now, input.to.flatMap((t) => t.split(',')).filter((t) => t.trim() !== ''));
    if (recipients.includes(fixed.sender)) {
      throw new BatonError(CoordinationErrorCode.SELF_ADDRESSED, `--to: ${fixed.sender} is the sender; a session cannot signal itself`, { field: '--to', identity: fixed.sender });
    }
  } else if (parent) {
    const parentSender = parent.data.sender_identity;
    recipients =
      parentSender !== fixed.sender && parentSender !== SYSTEM_IDENTITY ? [parentSender] : parent.data.recipients.filter((r) => r !== fixed.sender);
  } else {
    recipients = [];
  }
  if (input.requires_ack && recipients.length === 0) throw invalidInput('needs at least one recipient (a broadcast cannot be acknowledged)', '--requires-ack');

  const signal: SignalSentData = {
    schema_version: A2A_SCHEMA_VERSION,
    signal_id: newSignalId(),
    sender_identity: fixed.sender,
    recipients,
    ...(recipients.length > 0 ? { target_agent: recipients[0] } : {}),
    ...(fixed.workspace !== undefined ? { workspace_id: fixed.workspace } : {}),
    thread_id: input.thread ?? parent?.data.thread_id ?? newThreadId(),
    ...(input.reply_to !== undefined ? { reply_to: input.reply_to } : {}),
    intent: fixed.intent as SignalSentData['intent'],
    interrupt_class: input.interrupt_class ?? defaultInterruptClass(recipients),
    requires_ack: input.requires_ack ?? false,
    message: fixed.message,
    ...(input.idempotency_key !== undefined ? { idempotency_key: input.idempotency_key } : {}),
    origin: 'local',
    ...(wu !== undefined ? { wu_id: wu } : {}),
    ...(initiative !== undefined ? { initiative } : {}),
    ...((input.lane ?? parent?.data.lane) !== undefined ? { lane: input.lane ?? parent?.data.lane } : {}),
    ...((input.role ?? parent?.data.role) !== undefined ? { role: input.role ?? parent?.data.role } : {}),
    created_at: env.now,
    sender_session_id: env.session ?? null,
  };
  return SignalSentData.parse(signal);
}

/** After the append: one queue line per live claude-code recipient session, for interrupt/priority (§9.1). */
function enqueueHooks(env: CoordinationEnv, state: CoordinationState, signal: SignalSentData, seq: number): string[] {
  if (env.pendingDir === undefined || signal.interrupt_class === 'advisory' || signal.recipients.length === 0) return [];
  const out: string[] = [];
  for (const session of state.sessions.values()) {
    if (session.client_type !== ClientType.claude_code || !isLive(session, env.now)) continue;
    if (!signal.recipients.includes(readerIdentityOf(session))) continue;
    enqueuePending(env.pendingDir, session.session_id, [{ signal_id: signal.signal_id, seq }], env.now);
    out.push(session.session_id);
  }
  return out;
}
