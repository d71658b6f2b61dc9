import { z } from 'zod';
import { defineEvent } from '../catalog.js';
import {
  A2A_SCHEMA_VERSION,
  canonicalIdentity,
  idempotencyKey,
  initiativeId,
  INTENTS,
  INTERRUPT_CLASSES,
  InterruptClass,
  Intent,
  isoTime,
  lane,
  MAX_MESSAGE_LENGTH,
  MAX_RECIPIENTS,
  ORIGIN_PATTERN,
  role,
  sessionId,
  signalId,
  threadId,
  workspaceId,
  wuId,
} from './identities.js';

/** The A2A.V1 signal contract (coordination.md §5.1): exactly these fields. */
const signalShape = {
  schema_version: z.literal(A2A_SCHEMA_VERSION),
  signal_id: signalId,
  sender_identity: canonicalIdentity,
  recipients: z.array(canonicalIdentity).max(MAX_RECIPIENTS, `must hold at most ${MAX_RECIPIENTS} recipients`),
  target_agent: canonicalIdentity.optional(),
  workspace_id: workspaceId.optional(),
  thread_id: threadId,
  reply_to: signalId.optional(),
  intent: z.enum(INTENTS),
  interrupt_class: z.enum(INTERRUPT_CLASSES),
  requires_ack: z.boolean(),
  message: z
    .string()
    .max(MAX_MESSAGE_LENGTH, `must be at most ${MAX_MESSAGE_LENGTH} characters`)
    .refine((s) => s.trim().length > 0, 'must not be empty after trimming'),
  idempotency_key: idempotencyKey.optional(),
  origin: z.string().regex(ORIGIN_PATTERN, 'must match ^[a-z][a-z0-9_-]{0,31}$'),
  wu_id: wuId.optional(),
  initiative: initiativeId.optional(),
  lane: lane.optional(),
  role: role.optional(),
  created_at: isoTime,
};

interface RecipientsShape {
  recipients: string[];
  target_agent?: string | undefined;
}

/** The alias rule: `target_agent` present exactly when directed, and equal to `recipients[0]`. */
function checkAlias(value: RecipientsShape, ctx: z.RefinementCtx): void {
  if (new Set(value.recipients).size !== value.recipients.length) {
    ctx.addIssue({ code: 'custom', path: ['recipients'], message: 'must not repeat an identity' });
  }
  const first = value.recipients[0];
  if (first === undefined && value.target_agent !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['target_agent'], message: 'must be absent on a broadcast (recipients [])' });
  }
  if (first !== undefined && value.target_agent !== first) {
    ctx.addIssue({ code: 'custom', path: ['target_agent'], message: 'must equal recipients[0] (deprecated alias)' });
  }
}

export const A2ASignalV1 = z.strictObject(signalShape).superRefine(checkAlias);
export type A2ASignalV1 = z.infer<typeof A2ASignalV1>;

/** What `signal.sent` stores today: the contract plus Baton's one extension key. */
export const SignalSentData = z
  .strictObject({ ...signalShape, sender_session_id: sessionId.nullable() })
  .superRefine(checkAlias);
export type SignalSentData = z.infer<typeof SignalSentData>;

/**
 * LumenFlow's older records (§5.4): no `schema_version`, `id`/`sender` for `signal_id`/
 * `sender_identity`, only `target_agent`. Accepted on append and read so such lines never stop a
 * read; the upcaster lifts them to today's shape.
 */
export const LegacySignalData = z
  .strictObject({
    id: signalId.optional(),
    signal_id: signalId.optional(),
    sender: canonicalIdentity.optional(),
    sender_identity: canonicalIdentity.optional(),
    recipients: z.array(canonicalIdentity).max(MAX_RECIPIENTS).optional(),
    target_agent: canonicalIdentity.optional(),
    workspace_id: workspaceId.optional(),
    thread_id: threadId.optional(),
    reply_to: signalId.optional(),
    intent: z.enum(INTENTS).optional(),
    interrupt_class: z.enum(INTERRUPT_CLASSES).optional(),
    requires_ack: z.boolean().optional(),
    message: signalShape.message,
    idempotency_key: idempotencyKey.optional(),
    origin: signalShape.origin.optional(),
    wu_id: wuId.optional(),
    initiative: initiativeId.optional(),
    lane: lane.optional(),
    role: role.optional(),
    created_at: isoTime,
    sender_session_id: sessionId.nullable().optional(),
  })
  .refine((v) => v.id !== undefined || v.signal_id !== undefined, { message: 'needs signal_id (or legacy id)', path: ['signal_id'] })
  .refine((v) => v.sender !== undefined || v.sender_identity !== undefined, { message: 'needs sender_identity (or legacy sender)', path: ['sender_identity'] });

/** A record carrying `schema_version` must be today's shape; one without it is legacy. */
export const SignalSentStoredData = z.union([SignalSentData, LegacySignalData.refine((v) => !('schema_version' in v))]);

export function defaultInterruptClass(recipients: readonly string[]): InterruptClass {
  return recipients.length > 0 ? InterruptClass.priority : InterruptClass.advisory;
}

/** Lift a legacy record to today's shape; a current record comes back unchanged. */
export function upcastLegacySignal(data: Record<string, unknown>): Record<string, unknown> {
  if (data['schema_version'] !== undefined) return data;
  const { id, sender, ...rest } = data;
  const out: Record<string, unknown> = { schema_version: A2A_SCHEMA_VERSION, ...rest };
  if (out['signal_id'] === undefined && id !== undefined) out['signal_id'] = id;
  if (out['sender_identity'] === undefined && sender !== undefined) out['sender_identity'] = sender;
  const target = out['target_agent'];
  let recipients = Array.isArray(out['recipients']) ? (out['recipients'] as unknown[]) : [];
  if (recipients.length === 0 && typeof target === 'string') recipients = [target];
  out['recipients'] = recipients;
  // Directed records always carry the alias; a mismatched one stays as stored (an integrity finding).
  if (recipients.length > 0 && target === undefined) out['target_agent'] = recipients[0];
  out['intent'] ??= Intent.INFO;
  out['requires_ack'] ??= false;
  out['thread_id'] ??= out['signal_id'];
  out['interrupt_class'] ??= defaultInterruptClass(recipients as string[]);
  out['origin'] ??= 'local';
  out['sender_session_id'] ??= null;
  return out;
}

export const signalSent = defineEvent({
  type: 'signal.sent',
  schema: SignalSentStoredData,
  streams: ['thread'],
  description: 'An A2A.V1 signal (directed or broadcast) posted in a thread.',
  upcasters: [upcastLegacySignal],
});

/** The contract fields only: what the library hands to A2A consumers. */
export function toA2ASignalV1(data: SignalSentData | A2ASignalV1): A2ASignalV1 {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(signalShape)) {
    const value = (data as Record<string, unknown>)[key];
    if (value !== undefined) out[key] = value;
  }
  return out as A2ASignalV1;
}

export const SIGNAL_EVENTS = [signalSent] as const;
