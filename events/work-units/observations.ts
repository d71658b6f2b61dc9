import { z } from 'zod';
import { AuditMark } from '../audit-mark.js';
import { eventsOn } from '../catalog.js';
import { branchName, worktreePath, wuId } from './vocabulary.js';

/** What the probes saw outside the log (work-units.md §5.1–5.2), recorded only on change. */
export const ObservationWorktreeData = z.strictObject({ wu_id: wuId, path: worktreePath, present: z.boolean(), branch: branchName.nullable() });
export type ObservationWorktreeData = z.infer<typeof ObservationWorktreeData>;
export const ObservationBranchData = z.strictObject({ wu_id: wuId, branch: branchName, present: z.boolean() });
export const ObservationDirtyPathsData = z.strictObject({
  paths: z.array(z.string().min(1).max(4096)).refine((p) => p.every((x, i) => i === 0 || p[i - 1]! < x), 'must be sorted and unique'),
});
export const ObservationStampFileData = z.strictObject({
  wu_id: wuId,
  path: z.string().min(1).max(4096),
  present: z.boolean(),
  valid: z.boolean(),
  content_hash: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable()
    .optional(),
  /** Recorded by `baton audit --fix`: the finding it settles, and why. */
  audit: AuditMark.optional(),
});

export const OBSERVATION_EVENTS = [
  ...eventsOn('wu', [
    { type: 'observation.worktree', schema: ObservationWorktreeData, description: 'The worktree probe saw a WU worktree appear, disappear or change branch.' },
    { type: 'observation.branch', schema: ObservationBranchData, description: 'The branch probe saw a WU branch appear or disappear.' },
    { type: 'observation.stamp_file', schema: ObservationStampFileData, description: 'The stamp probe saw a done stamp file appear, change or disappear.' },
  ]),
  ...eventsOn('workspace', [
    { type: 'observation.dirty_paths', schema: ObservationDirtyPathsData, description: "The dirty probe saw the root checkout's uncommitted paths change." },
  ]),
] as const;
