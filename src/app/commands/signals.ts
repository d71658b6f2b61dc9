import type { z } from 'zod';
import { sendSignal, SendSignalInput, type SendResult } from '../../coordination/send.js';
import { coordinationEnv } from '../coordination-env.js';
import type { AppContext } from '../context.js';
import { checked } from '../envelopes/checked.js';
import { SignalSentEnvelope } from '../envelopes/coordination.js';
import { checkInput, given } from './input.js';

export type SignalSentEnvelope = z.output<typeof SignalSentEnvelope>;

/** A signal to send, by the domain's names (coordination.md §6.1); `to` lists recipients (none: broadcast). */
export interface SignalInput {
  message: string;
  to?: string[] | undefined;
  wu?: string | undefined;
  initiative?: string | undefined;
  lane?: string | undefined;
  role?: string | undefined;
  intent?: string | undefined;
  requires_ack?: boolean | undefined;
  reply_to?: string | undefined;
  thread?: string | undefined;
  interrupt_class?: string | undefined;
  idempotency_key?: string | undefined;
  workspace_id?: string | undefined;
}

/** The envelope, and the recipients by their live display names (a person's rendering names them; the envelope does not). */
export interface SignalSent {
  envelope: SignalSentEnvelope;
  recipient_names: SendResult['recipient_names'];
}

/** `mem signal`: check the input by its fields, then send (src/coordination/send.ts: decide, append one batch, enqueue hooks). */
export async function sendSignalEnvelope(app: AppContext, input: SignalInput): Promise<SignalSent> {
  const env = await coordinationEnv(app);
  const fields = checkInput(SendSignalInput, given(input));
  const result = await sendSignal(env, fields);
  const envelope = checked(SignalSentEnvelope, {
    v: 1,
    type: 'signal_sent',
    generated_at: app.now,
    seq: result.seq,
    deduplicated: result.deduplicated,
    signal: result.signal,
    promoted_receipts: result.promoted_receipts,
    hook_enqueued: result.hook_enqueued,
  });
  return { envelope, recipient_names: result.recipient_names };
}
