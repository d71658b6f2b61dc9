import { z } from 'zod';
import { CLIENT_TYPES } from '../../events/coordination/identities.js';
import { CLAIMED_MODES, laneName } from '../../events/work-units/vocabulary.js';

/**
 * The work-unit settings of `.baton/config.yaml` (work-units.md §15). Views depend on the log, the
 * clock and these; the schema lives here (pure) so views and the CLI share it.
 */
export const LockPolicy = { all: 'all', active: 'active', none: 'none' } as const;
export type LockPolicy = (typeof LockPolicy)[keyof typeof LockPolicy];
export const LOCK_POLICIES = Object.values(LockPolicy);

const DURATION = /^([1-9][0-9]{0,8})(s|m|h|d)$/;
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

export function durationSeconds(value: string): number | undefined {
  const m = DURATION.exec(value);
  return m ? Number(m[1]) * UNIT_SECONDS[m[2]!]! : undefined;
}

const LaneSettings = z.strictObject({
  lock_policy: z.enum(LOCK_POLICIES, `must be one of ${LOCK_POLICIES.join(', ')}`).optional(),
  wip_limit: z.number().int().min(1, 'must be at least 1').max(1000).optional(),
});

export const WorkUnitsConfigSchema = z.looseObject({
  orchestration: z
    .strictObject({
      stall_threshold: z.string().refine((s) => durationSeconds(s) !== undefined, 'must be <int>(s|m|h|d), > 0').default('4h'),
      max_active_workers: z.number().int().min(0).max(1000).nullable().default(null),
      default_client: z.enum(CLIENT_TYPES, `must be one of ${CLIENT_TYPES.join(', ')}`).default('generic'),
      default_claim_mode: z.enum(CLAIMED_MODES, `must be one of ${CLAIMED_MODES.join(', ')}`).default('worktree'),
      worktrees_dir: z.string().min(1).max(300).refine((s) => !s.includes('\0'), 'must not contain NUL').default('worktrees'),
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
export type WorkUnitsConfig = z.output<typeof WorkUnitsConfigSchema>;

export const DEFAULT_WORK_UNITS_CONFIG: WorkUnitsConfig = WorkUnitsConfigSchema.parse({});

/** A lane's policy: exact lane, then parent lane (text before the first ": "), then the defaults. */
export function laneSettings(config: WorkUnitsConfig, lane: string): { lock_policy: LockPolicy; wip_limit: number } {
  const cut = lane.indexOf(': ');
  const parent = cut >= 0 ? lane.slice(0, cut) : undefined;
  const own = Object.hasOwn(config.lanes, lane) ? config.lanes[lane] : undefined;
  const up = parent !== undefined && Object.hasOwn(config.lanes, parent) ? config.lanes[parent] : undefined;
  return {
    lock_policy: own?.lock_policy ?? up?.lock_policy ?? config.lane_defaults.lock_policy,
    wip_limit: own?.wip_limit ?? up?.wip_limit ?? config.lane_defaults.wip_limit,
  };
}
