import { createHash } from 'node:crypto';
import { z } from 'zod';
import { decideSend, type SendSignal } from '../../deciders/signals.js';
import {
  idempotencyKey,
  initiativeId,
  INTENTS,
  INTERRUPT_CLASSES,
  lane,
  MAX_MESSAGE_LENGTH,
  role,
  signalId,
  threadId,
  workspaceId,
  wuId,
  ClientType,
} from '../../events/coordination/identities.js';
import { SignalSentData, toA2ASignalV1, type A2ASignalV1 } from '../../events/coordination/signal.js';
import { isLive, readerIdentityOf } from '../../projections/coordination/sessions.js';
import type { CoordinationState, SignalRecord } from '../../projections/coordination/state.js';
import { ErrorCode, isBatonError } from '../errors.js';
import { handleCommand } from '../store/handle-command.js';
import { actorOf, loadState, type CoordinationEnv } from './env.js';
import { newSignalId, newThreadId } from './ids.js';
import { parseInput } from './parse-input.js';
import { enqueuePending } from './pending-queue.js';
import { A2AProfile } from './settings.js';

/** `mem signal` (coordination.md §6): check the input, decide on the fold (deciders/signals.ts), append one batch, enqueue hooks. */
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

export { resolveRecipients } from './recipients.js';
export { promotions } from '../../deciders/signals.js';

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

/** The decider's command: the checked input, who acts, the clock, fresh ids, the profile. */
function sendCommand(env: CoordinationEnv, input: z.infer<typeof SendSignalInput>): SendSignal {
  const { message, ...rest } = input;
  return {
    ...rest,
    message: message.trim(),
    session: env.session,
    envIdentity: env.envIdentity,
    now: env.now,
    signalId: newSignalId(),
    threadId: newThreadId(),
    hosted: env.settings.profile === A2AProfile.hosted ? { workspaceId: env.settings.workspaceId } : null,
    storeKey: storeIdempotencyKey,
  };
}

/** Validate, decide on the fold (deciders/signals.ts), append one batch, enqueue hooks. */
export async function sendSignal(env: CoordinationEnv, rawInput: SendSignalInput): Promise<SendResult> {
  const command = sendCommand(env, parseInput(SendSignalInput, rawInput));
  const io = { store: env.store, catalog: env.catalog, actor: actorOf(env), now: env.now, read: async () => (await loadState(env)).state };
  for (let attempt = 0; ; attempt++) {
    let refused = false;
    try {
      const handled = await handleCommand(io, (state) => {
        refused = true;
        const decision = decideSend(command, state);
        refused = false;
        return decision;
      });
      const outcome = handled.decision!.outcome;
      if ('duplicate' in outcome) return dedupResult(handled.state, env.now, outcome.duplicate);
      const stored = handled.appended[0]!;
      const signal = SignalSentData.parse(stored.data);
      const enqueued = handled.deduplicated ? [] : enqueueHooks(env, handled.state, signal, stored.seq);
      return {
        seq: stored.seq,
        deduplicated: handled.deduplicated,
        signal: toA2ASignalV1(signal),
        promoted_receipts: handled.deduplicated ? 0 : outcome.promoted,
        hook_enqueued: enqueued,
        recipient_names: namesOf(handled.state, env.now, signal.recipients),
      };
    } catch (error) {
      // A concurrent send with the same key won the store's race: fold again and answer as a duplicate.
      if (!refused && isBatonError(error) && error.code === ErrorCode.IDEMPOTENCY_CONFLICT && attempt < 3) continue;
      throw error;
    }
  }
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
