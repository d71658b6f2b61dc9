import { DEFAULT_WORK_UNITS_CONFIG, type WorkUnitsConfig } from '../../projections/work-units/settings.js';
import { WorkUnitsConfigSchema } from '../work-units/validators.generated.js';
import { loadConfigSection } from './load-section.js';
import type { ConfigSection } from './section.js';

/** The work-unit sections of config.yaml (work-units.md §15). */
export const WORK_UNITS_CONFIG_SECTION: ConfigSection<WorkUnitsConfig> = {
  compiled: WorkUnitsConfigSchema,
  schema: () => import('../../projections/work-units/settings-schema.js').then((m) => m.WorkUnitsConfigSchema),
  defaults: DEFAULT_WORK_UNITS_CONFIG,
};

/** `workUnitsConfigFrom` (work-units/config.ts), loading zod and `yaml` only when it must. */
export function loadWorkUnitsConfig(configText: string | undefined): Promise<WorkUnitsConfig> {
  return loadConfigSection(configText, WORK_UNITS_CONFIG_SECTION);
}
