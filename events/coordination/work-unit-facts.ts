import { z } from 'zod';
import { defineEvent } from '../catalog.js';
import { canonicalIdentity, sessionId, signalId, wuId } from './identities.js';

/** `wu prep` passed only because its unread-signal gate was waived (coordination.md §10). Owned here. */
export const WuPrepOverriddenData = z.strictObject({
  wu_id: wuId,
  session_id: sessionId.nullable(),
  reader_identity: canonicalIdentity,
  reason: z
    .string()
    .min(1)
    .max(500, 'must be at most 500 characters')
    .refine((s) => s.trim().length > 0, 'must not be empty after trimming'),
  signal_ids: z.array(signalId).min(1),
});
export type WuPrepOverriddenData = z.infer<typeof WuPrepOverriddenData>;

export const WU_PREP_EVENTS = [
  defineEvent({
    type: 'wu.prep_overridden',
    schema: WuPrepOverriddenData,
    streams: ['wu'],
    description: 'wu prep waived unread directed signals with a recorded reason; the signals stay unread.',
  }),
] as const;
