import { z } from 'zod';
import { DeliveryState, INTENTS, ReceiptVia, SYSTEM_IDENTITY, threadId, wuId, type ReceiptVia as Via } from '../../events/coordination/identities.js';
import type { ReceiptRecordedData } from '../../events/coordination/receipt.js';
import type { NewEvent } from '../../events/envelope.js';
import { convergenceView, type ConvergenceView } from '../../projections/coordination/convergence.js';
import { actingIdentity } from '../../projections/coordination/sessions.js';
import { inboxRecords, inboxView, type InboxView } from '../../projections/coordination/signals.js';
import type { CoordinationState, SignalRecord } from '../../projections/coordination/state.js';
import { BatonError, ErrorCode, invalidInput } from '../errors.js';
import { actorOf, loadState, type CoordinationEnv } from './env.js';
import { parseInput, resolveRecipients } from './send.js';
import { readFilter } from './settings.js';

/** `mem inbox` (§7.3) and `mem converged` (§8). */
export const InboxInput = z.strictObject({
  for: z.string().min(1).max(200).optional(),
  thread: threadId.optional(),
  intent: z.array(z.enum(INTENTS, `must be one of ${INTENTS.join(', ')}`)).optional(),
  wu: wuId.optional(),
  mark: z.boolean().default(true),
  all: z.boolean().default(false),
});
export type InboxInput = z.input<typeof InboxInput>;

const INBOX_FLAGS: Record<string, string> = { for: '--for', thread: '--thread', intent: '--intent', wu: '--wu', mark: '--no-mark', all: '--all' };

/** Delivered receipts for `records`, one batch, for `reader`. */
export function deliveredReceipts(records: readonly SignalRecord[], reader: string, session: string | null, via: Via, now: string): ReceiptRecordedData[] {
  return records.map((r) => ({
    signal_id: r.data.signal_id,
    reader_identity: reader,
    read_at: now,
    delivery_state: DeliveryState.delivered,
    thread_id: r.data.thread_id,
    session_id: session,
    via,
    cause_signal_id: null,
  }));
}

export function receiptEvents(receipts: readonly ReceiptRecordedData[], actor: string, now: string): NewEvent[] {
  return receipts.map((r) => ({ type: 'receipt.recorded', stream: `thread/${r.thread_id}`, data: r, actor, at: now }));
}

/** The reader of an inbox: `--for` resolved, else the acting identity unless system; null = observer mode. */
function inboxReader(state: CoordinationState, env: CoordinationEnv, forToken: string | undefined): string | null {
  if (forToken !== undefined) return resolveRecipients(state, env.now, [forToken], '--for')[0]!;
  const acting = actingIdentity(state, env.session, env.envIdentity);
  return acting === SYSTEM_IDENTITY ? null : acting;
}

export async function readInbox(env: CoordinationEnv, raw: InboxInput): Promise<InboxView> {
  const input = parseInput(InboxInput, raw, INBOX_FLAGS);
  const { state } = await loadState(env);
  if (env.session !== undefined && !state.sessions.has(env.session)) {
    throw new BatonError(ErrorCode.UNKNOWN_ID, `Session ${env.session} not found`, { field: '--session', session_id: env.session });
  }
  const reader = inboxReader(state, env, input.for);
  const acting = actingIdentity(state, env.session, env.envIdentity);
  const query = { reader, thread: input.thread, intents: input.intent, wu: input.wu, all: input.all || reader === null, workspace: readFilter(env.settings) };
  const view = inboxView(state, env.now, query, { session_id: env.session ?? null });
  // A session reading for another identity never marks that identity's signals.
  const mayMark = input.mark && reader !== null && (acting === SYSTEM_IDENTITY || acting === reader);
  if (!mayMark) return view;
  const unread = inboxRecords(state, { ...query, all: false });
  if (unread.length > 0) {
    await env.store.append(receiptEvents(deliveredReceipts(unread, reader, env.session ?? null, ReceiptVia.inbox, env.now), actorOf(env), env.now));
  }
  return { ...view, marked: unread.length };
}

export async function threadConvergence(env: CoordinationEnv, thread: string): Promise<ConvergenceView> {
  const parsed = threadId.safeParse(thread);
  if (!parsed.success) throw invalidInput(parsed.error.issues[0]!.message, '--thread');
  const { state } = await loadState(env);
  const view = convergenceView(state, env.now, thread, readFilter(env.settings));
  if (!view) throw new BatonError(ErrorCode.UNKNOWN_ID, `Thread ${thread} not found`, { field: '--thread', thread_id: thread });
  return view;
}
