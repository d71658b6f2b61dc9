import { z } from 'zod';
import { defineEvent } from '../catalog.js';
import {
  A2A_SCHEMA_VERSION,
  canonicalIdentity,
  idempotencyKey,
  initiativeId,
  INTENTS,
  INTERRUPT_CLASSES,
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
import { aliasIsFirstRecipient, hasNoSchemaVersion, hasSenderIdentity, hasSignalId, noAliasOnBroadcast, notBlank, recipientsDistinct } from './rules.js';
import { upcastLegacySignal } from './signal-records.js';

export { A2A_SIGNAL_V1_FIELDS, defaultInterruptClass, toA2ASignalV1, upcastLegacySignal } from './signal-records.js';

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
  message: z.string().max(MAX_MESSAGE_LENGTH, `must be at most ${MAX_MESSAGE_LENGTH} characters`).refine(notBlank, 'must not be empty after trimming'),
  idempotency_key: idempotencyKey.optional(),
  origin: z.string().regex(ORIGIN_PATTERN, 'must match ^[a-z][a-z0-9_-]{0,31}$'),
  wu_id: wuId.optional(),
  initiative: initiativeId.optional(),
  lane: lane.optional(),
  role: role.optional(),
  created_at: isoTime,
};

/**
 * The alias rule (rules.ts): recipients distinct, `target_agent` present exactly when directed, and
 * equal to `recipients[0]`. Three named refinements (not one superRefine), so the compiled
 * validators can call the same predicates.
 */
function withAliasRule<S extends z.ZodType<{ recipients: string[]; target_agent?: string | undefined }>>(schema: S): S {
  return schema
    .refine(recipientsDistinct, { path: ['recipients'], message: 'must not repeat an identity' })
    .refine(noAliasOnBroadcast, { path: ['target_agent'], message: 'must be absent on a broadcast (recipients [])' })
    .refine(aliasIsFirstRecipient, { path: ['target_agent'], message: 'must equal recipients[0] (deprecated alias)' });
}

export const A2ASignalV1 = withAliasRule(z.strictObject(signalShape));
export type A2ASignalV1 = z.infer<typeof A2ASignalV1>;

/** What `signal.sent` stores today: the contract plus Baton's one extension key. */
export const SignalSentData = withAliasRule(z.strictObject({ ...signalShape, sender_session_id: sessionId.nullable() }));
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
  .refine(hasSignalId, { message: 'needs signal_id (or legacy id)', path: ['signal_id'] })
  .refine(hasSenderIdentity, { message: 'needs sender_identity (or legacy sender)', path: ['sender_identity'] });

/** A record carrying `schema_version` must be today's shape; one without it is legacy. */
export const SignalSentStoredData = z.union([SignalSentData, LegacySignalData.refine(hasNoSchemaVersion)]);

export const signalSent = defineEvent({
  type: 'signal.sent',
  schema: SignalSentStoredData,
  streams: ['thread'],
  description: 'An A2A.V1 signal (directed or broadcast) posted in a thread.',
  upcasters: [upcastLegacySignal],
});

export const SIGNAL_EVENTS = [signalSent] as const;
