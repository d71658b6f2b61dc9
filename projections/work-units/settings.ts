import type { z } from 'zod';
import type { WorkUnitsConfigSchema } from './settings-schema.js';

/**
 * The work-unit settings of `.baton/config.yaml` (work-units.md §15). Views depend on the log, the
 * clock and these. This module loads no zod: the schema is settings-schema.ts, and the defaults
 * below are what it gives for an empty file (test/work-units/settings.test.ts holds them equal).
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

export type WorkUnitsConfig = z.output<typeof WorkUnitsConfigSchema>;

/** `WorkUnitsConfigSchema.parse({})`, written out. */
export const DEFAULT_WORK_UNITS_CONFIG: WorkUnitsConfig = {
  orchestration: {
    stall_threshold: '4h',
    max_active_workers: null,
    default_client: 'generic',
    default_claim_mode: 'worktree',
    worktrees_dir: 'worktrees',
    claude_subagent_type: 'general-purpose',
    contamination_ignore: [],
  },
  lane_defaults: { lock_policy: 'all', wip_limit: 1 },
  lanes: {},
  prep: { commands: [] },
  probes: { enabled: true, wu_yaml_paths: [] },
};

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
