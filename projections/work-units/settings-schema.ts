import { z } from 'zod';
import { CLIENT_TYPES } from '../../events/coordination/identities.js';
import { CLAIMED_MODES, laneName } from '../../events/work-units/vocabulary.js';
import { durationSeconds, LOCK_POLICIES } from './settings.js';

/**
 * The zod schema of the work-unit settings of `.baton/config.yaml` (work-units.md §15): the single
 * source of truth for what the file may say. settings.ts holds the zod-free rest (the type, the
 * defaults, lane lookups), so the fold and the views load no zod; src/work-units/config.ts reads the
 * file with the schema's compiled validator and asks the schema itself only about an error.
 */
const LaneSettings = z.strictObject({
  lock_policy: z.enum(LOCK_POLICIES, `must be one of ${LOCK_POLICIES.join(', ')}`).optional(),
  wip_limit: z.number().int().min(1, 'must be at least 1').max(1000).optional(),
});

export const WorkUnitsConfigSchema = z.looseObject({
  orchestration: z
    .strictObject({
      stall_threshold: z
        .string()
        .refine((s) => durationSeconds(s) !== undefined, 'must be <int>(s|m|h|d), > 0')
        .default('4h'),
      max_active_workers: z.number().int().min(0).max(1000).nullable().default(null),
      default_client: z.enum(CLIENT_TYPES, `must be one of ${CLIENT_TYPES.join(', ')}`).default('generic'),
      default_claim_mode: z.enum(CLAIMED_MODES, `must be one of ${CLAIMED_MODES.join(', ')}`).default('worktree'),
      worktrees_dir: z
        .string()
        .min(1)
        .max(300)
        .refine((s) => !s.includes('\0'), 'must not contain NUL')
        .default('worktrees'),
      claude_subagent_type: z.string().min(1).max(100).default('general-purpose'),
      contamination_ignore: z.array(z.string().min(1).max(300)).default([]),
    })
    .prefault({}),
  lane_defaults: z
    .strictObject({
      lock_policy: z.enum(LOCK_POLICIES, `must be one of ${LOCK_POLICIES.join(', ')}`).default('all'),
      wip_limit: z.number().int().min(1, 'must be at least 1').max(1000).default(1),
    })
    .prefault({}),
  lanes: z.record(laneName, LaneSettings).default({}),
  prep: z.strictObject({ commands: z.array(z.array(z.string().min(1)).min(1, 'must name a program')).default([]) }).prefault({}),
  probes: z.strictObject({ enabled: z.boolean().default(true), wu_yaml_paths: z.array(z.string().min(1)).default([]) }).prefault({}),
});
