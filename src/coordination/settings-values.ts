import type { CoordinationConfig } from './settings.js';
import { BatonError, invalidInput } from '../errors.js';
import { CoordinationErrorCode } from './errors.js';

/**
 * The zod-free half of settings.ts (which re-exports all of it): the defaults, the types, the
 * duration rule, and the checks that follow the schema. The read path (`mem inbox`) reads the
 * settings through src/config/coordination.ts with the compiled schema and never loads zod.
 */
export const DEFAULT_DISPLAY_NAME_POOL = [
  'Planck',
  'Noether',
  'Curie',
  'Turing',
  'Lovelace',
  'Hopper',
  'Fermi',
  'Bohr',
  'Darwin',
  'Euler',
  'Gauss',
  'Hilbert',
  'Kepler',
  'Maxwell',
  'Newton',
  'Pascal',
  'Raman',
  'Shannon',
  'Tesla',
  'Volta',
  'Galois',
  'Hypatia',
  'Ramanujan',
  'Meitner',
  'Feynman',
  'Dirac',
  'Faraday',
  'Franklin',
  'Goodall',
  'Hawking',
  'Lamarr',
  'Mendel',
] as const;

export const DEFAULT_SESSION_TTL_SECONDS = 4 * 3600;

export const A2AProfile = { local: 'local', hosted: 'hosted' } as const;
export type A2AProfile = (typeof A2AProfile)[keyof typeof A2AProfile];

const DURATION = /^(\d+)(s|m|h|d)?$/;
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** `4h`, `30m`, `90s`, `2d`, or a number of seconds. */
export function parseDuration(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  const m = DURATION.exec(value.trim());
  if (!m) return undefined;
  const seconds = Number(m[1]) * UNIT_SECONDS[m[2] ?? 's']!;
  return seconds > 0 && Number.isSafeInteger(seconds) ? seconds : undefined;
}

export interface CoordinationSettings {
  sessionTtlSeconds: number;
  displayNamePool: readonly string[];
  profile: A2AProfile;
  /** The configured workspace id (required, and the read filter, when hosted). */
  workspaceId: string | undefined;
}

export const DEFAULT_COORDINATION_SETTINGS: CoordinationSettings = {
  sessionTtlSeconds: DEFAULT_SESSION_TTL_SECONDS,
  displayNamePool: DEFAULT_DISPLAY_NAME_POOL,
  profile: A2AProfile.local,
  workspaceId: undefined,
};

/** The settings from a config that passed CoordinationConfigSchema: durations and profile rules. */
export function settingsFromConfig(c: CoordinationConfig): CoordinationSettings {
  let ttl = DEFAULT_SESSION_TTL_SECONDS;
  if (c.session_ttl !== undefined) {
    const seconds = parseDuration(c.session_ttl);
    if (seconds === undefined) throw invalidInput('must be a positive duration like 4h, 30m, 90s or a number of seconds', 'config.yaml.session_ttl');
    ttl = seconds;
  }
  const profile = c.a2a?.profile ?? A2AProfile.local;
  const workspaceId = c.a2a?.workspace_id ?? undefined;
  if (profile === A2AProfile.hosted && workspaceId === undefined) {
    throw new BatonError(CoordinationErrorCode.WORKSPACE_ID_REQUIRED, 'config.yaml a2a.workspace_id: is required when a2a.profile is hosted', {
      field: 'a2a.workspace_id',
    });
  }
  return { sessionTtlSeconds: ttl, displayNamePool: c.display_name_pool ?? DEFAULT_DISPLAY_NAME_POOL, profile, workspaceId };
}

/** The read filter of the profile: hosted reads only its own workspace's signals. */
export function readFilter(settings: CoordinationSettings): string | undefined {
  return settings.profile === A2AProfile.hosted ? settings.workspaceId : undefined;
}
