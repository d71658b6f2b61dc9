import { z } from 'zod';
import { DISPLAY_NAME_PATTERN, WORKSPACE_ID_PATTERN } from '../../events/coordination/identities.js';
import { parseConfigSection } from '../config/parse-section.js';
import { A2AProfile, DEFAULT_COORDINATION_SETTINGS, settingsFromConfig, type CoordinationSettings } from './settings-values.js';

/**
 * The coordination settings of `.baton/config.yaml` (coordination.md §14): `session_ttl`,
 * `display_name_pool`, `a2a.profile`, `a2a.workspace_id`. Other sections are left to their owners.
 */
export * from './settings-values.js';

const Pool = z
  .array(
    z
      .string()
      .regex(DISPLAY_NAME_PATTERN, 'must match ^[A-Za-z][A-Za-z0-9_-]{0,31}$')
      .refine((n) => !/-\d+$/.test(n), 'must not end in -<digits>'),
  )
  .min(1, 'must hold at least one name')
  .max(1000, 'must hold at most 1,000 names')
  .refine((names) => new Set(names.map((n) => n.toLowerCase())).size === names.length, 'names must be distinct ignoring case');

export const CoordinationConfigSchema = z.looseObject({
  session_ttl: z.union([z.string(), z.number()]).optional(),
  display_name_pool: Pool.optional(),
  a2a: z
    .strictObject({
      profile: z.enum([A2AProfile.local, A2AProfile.hosted]).default(A2AProfile.local),
      workspace_id: z.string().regex(WORKSPACE_ID_PATTERN, 'must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$').nullable().optional(),
    })
    .optional(),
});
export type CoordinationConfig = z.output<typeof CoordinationConfigSchema>;

/** The settings of config.yaml's text (undefined: no file); src/config/coordination.ts reads them without zod. */
export function coordinationSettingsFrom(configText: string | undefined): CoordinationSettings {
  if (configText === undefined) return DEFAULT_COORDINATION_SETTINGS;
  return settingsFromConfig(parseConfigSection(configText, CoordinationConfigSchema, {}));
}
