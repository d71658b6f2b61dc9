import type { CoordinationConfig } from '../coordination/settings.js';
import { settingsFromConfig, type CoordinationSettings } from '../coordination/settings-values.js';
import { CoordinationConfigSchema } from '../validators.generated.js';
import { loadConfigSection } from './load-section.js';
import type { ConfigSection } from './section.js';

/** The coordination settings of config.yaml (coordination.md §14). */
export const COORDINATION_CONFIG_SECTION: ConfigSection<CoordinationConfig> = {
  compiled: CoordinationConfigSchema,
  schema: () => import('../coordination/settings.js').then((m) => m.CoordinationConfigSchema),
  defaults: {},
};

/** `coordinationSettingsFrom` (coordination/settings.ts), loading zod and `yaml` only when it must. */
export async function loadCoordinationSettings(configText: string | undefined): Promise<CoordinationSettings> {
  return settingsFromConfig(await loadConfigSection(configText, COORDINATION_CONFIG_SECTION));
}
