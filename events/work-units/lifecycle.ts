import { z } from 'zod';
import { AuditMark } from '../audit-mark.js';
import { defineEvent } from '../catalog.js';
import { sessionId } from '../coordination/identities.js';
import { branchName, CLAIMED_MODES, codePath, requiredText, text, worktreePath, wuId } from './vocabulary.js';

/** The lifecycle facts of work-units.md §3.3, appended by the `wu` commands and integrations. */
const session = sessionId.nullable();
const note = text(4000).nullable();

export const WuClaimedData = z.strictObject({
  wu_id: wuId,
  session_id: session,
  mode: z.enum(CLAIMED_MODES, `must be one of ${CLAIMED_MODES.join(', ')}`),
  worktree_path: worktreePath.nullable(),
  branch: branchName.nullable(),
  takeover_from: session,
  /** Why the claim took over a lapsed holder, or overrode readiness (`--takeover` / `--force`). */
  reason: text(2000).optional(),
  /** The readiness checks the claim overrode with `--force`. */
  forced: z.array(z.enum(['dependencies', 'lane'])).optional(),
  /** The agent identity that holds a claim made without a session. */
  agent_identity: z.string().min(1).max(200).optional(),
  /** Paths or globs the claim reserves for its holder besides the WU's code_paths (`--paths`). */
  paths: z.array(codePath).min(1).max(100).optional(),
});
export type WuClaimedData = z.infer<typeof WuClaimedData>;

export const WuCheckpointedData = z.strictObject({
  wu_id: wuId,
  session_id: session,
  note: requiredText(4000),
  progress: note,
  next_steps: note,
});
export type WuCheckpointedData = z.infer<typeof WuCheckpointedData>;

export const WuWorkerReturnedData = z.strictObject({
  wu_id: wuId,
  session_id: session,
  note,
  source: z.enum(['manual']),
});

export const WuBlockedData = z.strictObject({ wu_id: wuId, reason: requiredText(2000) });
export type WuBlockedData = z.infer<typeof WuBlockedData>;
export const WuUnblockedData = z.strictObject({ wu_id: wuId });

export const WuReleasedData = z.strictObject({
  wu_id: wuId,
  reason: text(2000).nullable(),
  previous_claimant: z.string().max(200).nullable(),
  /** Recorded by `baton audit --fix`: the finding it settles, and why. */
  audit: AuditMark.optional(),
});

export const WuStampedData = z.strictObject({
  wu_id: wuId,
  title: requiredText(200),
  completed_date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD'),
  stamp_path: z.string().min(1).max(4096),
  /** The holder an orchestrator finished the WU for (its worker returned, or its lease lapsed). */
  finished_for: z.string().min(1).max(200).optional(),
});
export type WuStampedData = z.infer<typeof WuStampedData>;

const delegationId = z.string().min(1).max(200);
export const DelegationPickedUpData = z.strictObject({ wu_id: wuId, delegation_id: delegationId, picked_up_by: z.string().min(1).max(200) });
/** Loose: an integration may say how the delegation ended; any outcome counts as a return (§6.2). */
export const DelegationCompletedData = z.looseObject({ wu_id: wuId, delegation_id: delegationId });

export const LIFECYCLE_EVENTS = [
  defineEvent({
    type: 'wu.claimed',
    schema: WuClaimedData,
    streams: ['wu'],
    description: 'A work unit was claimed (baton wu claim); takeover_from names a dead claimant.',
  }),
  defineEvent({ type: 'wu.checkpointed', schema: WuCheckpointedData, streams: ['wu'], description: 'Progress on a claimed work unit (baton wu checkpoint).' }),
  defineEvent({
    type: 'wu.worker_returned',
    schema: WuWorkerReturnedData,
    streams: ['wu'],
    description: 'The worker handed the work unit back (baton wu return).',
  }),
  defineEvent({ type: 'wu.blocked', schema: WuBlockedData, streams: ['wu'], description: 'A work unit was blocked, with a reason (baton wu block).' }),
  defineEvent({
    type: 'wu.unblocked',
    schema: WuUnblockedData,
    streams: ['wu'],
    description: 'A blocked work unit returned to its state before the block (baton wu unblock).',
  }),
  defineEvent({
    type: 'wu.released',
    schema: WuReleasedData,
    streams: ['wu'],
    description: 'A claim or handoff was released; the work unit is ready again (baton wu release).',
  }),
  defineEvent({
    type: 'wu.stamped',
    schema: WuStampedData,
    streams: ['wu'],
    description: 'A work unit was finished and its done stamp written (baton wu done).',
  }),
  defineEvent({
    type: 'delegation.picked_up',
    schema: DelegationPickedUpData,
    streams: ['wu'],
    description: 'An integration reports a delegated worker picked the work unit up.',
  }),
  defineEvent({
    type: 'delegation.completed',
    schema: DelegationCompletedData,
    streams: ['wu'],
    description: 'An integration reports a delegated worker finished (counts as a return).',
  }),
] as const;
