import { z } from 'zod';
import { defineEvent } from '../catalog.js';
import { canonicalIdentity, initiativeId, lane, sessionId, signalId, wuId } from './identities.js';

/**
 * PROVISIONAL. The work-unit issue owns `initiative.created`, `wu.defined` and `wu.claimed`
 * (work-units.md §5.1) and will replace these definitions with its full schemas. Coordination needs
 * only a few of their fields (a WU's initiative and lane, who claimed it), so these accept the
 * spec's shapes loosely and require just those fields; they exist so `--wu` checks, the roster's
 * current WU and the prep gate work before that issue lands.
 */
export const InitiativeCreatedData = z.looseObject({
  initiative: initiativeId,
  title: z.string().min(1).max(200),
  lanes: z.array(lane).default([]),
});

export const WuDefinedData = z.looseObject({
  wu_id: wuId,
  initiative: initiativeId.nullable().optional(),
  lane: lane.optional(),
});

export const WuClaimedData = z.looseObject({
  wu_id: wuId,
  session_id: sessionId.nullable(),
});

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

export const PROVISIONAL_WORK_UNIT_EVENTS = [
  defineEvent({ type: 'initiative.created', schema: InitiativeCreatedData, streams: ['initiative'], description: 'An initiative was created (provisional shape).' }),
  defineEvent({ type: 'wu.defined', schema: WuDefinedData, streams: ['wu'], description: 'A work unit was defined (provisional shape).' }),
  defineEvent({ type: 'wu.claimed', schema: WuClaimedData, streams: ['wu'], description: 'A work unit was claimed by a session (provisional shape).' }),
] as const;

export const WU_PREP_EVENTS = [
  defineEvent({
    type: 'wu.prep_overridden',
    schema: WuPrepOverriddenData,
    streams: ['wu'],
    description: 'wu prep waived unread directed signals with a recorded reason; the signals stay unread.',
  }),
] as const;
