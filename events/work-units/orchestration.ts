import { z } from 'zod';
import { defineEvent } from '../catalog.js';
import { CLIENT_TYPES } from '../coordination/identities.js';
import { branchName, CLAIMED_MODES, HANDOFF_FORMATS, initiativeId, laneName, worktreePath, wuId } from './vocabulary.js';

/** `orchestrate run`'s facts (work-units.md §5.1, §10.2): an attempt and its handoffs. */
const attempt = z.number().int().min(0);
const wave = z.number().int().min(0);

export const AttemptStartedData = z.strictObject({
  initiative: initiativeId,
  launch_attempt: attempt,
  client: z.enum(CLIENT_TYPES),
  handoff_format: z.enum(HANDOFF_FORMATS),
  max_active_workers: z.number().int().min(0).max(1000).nullable(),
  max_active_workers_source: z.enum(['cli', 'config', 'default']),
  stall_threshold: z.string().min(1).max(20),
  logical_waves: z.array(wave),
  waves: z.array(z.looseObject({ planned_wave: wave })),
  deferred: z.array(z.looseObject({ wu_id: wuId, reason: z.string() })),
});
export type AttemptStartedData = z.infer<typeof AttemptStartedData>;

export const HandoffEmittedData = z.strictObject({
  initiative: initiativeId,
  wu_id: wuId,
  launch_attempt: attempt,
  lane: laneName,
  logical_wave: wave,
  handoff_format: z.enum(HANDOFF_FORMATS),
  handoff_artifact_path: z.string().min(1).max(4096),
  content_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  claimed_mode: z.enum(CLAIMED_MODES),
  worktree_path: worktreePath.nullable(),
  branch: branchName,
  relaunch: z.boolean(),
});
export type HandoffEmittedData = z.infer<typeof HandoffEmittedData>;

export const ORCHESTRATION_EVENTS = [
  defineEvent({
    type: 'orchestration.attempt_started',
    schema: AttemptStartedData,
    streams: ['initiative'],
    description: 'orchestrate run started a launch attempt, recording the settings it used.',
  }),
  defineEvent({
    type: 'handoff.emitted',
    schema: HandoffEmittedData,
    streams: ['initiative'],
    description: 'orchestrate run wrote a handoff for a work unit (relaunch: a new window).',
  }),
] as const;
