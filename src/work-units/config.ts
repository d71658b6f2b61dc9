import { WorkUnitsConfigSchema } from '../../projections/work-units/settings-schema.js';
import { DEFAULT_WORK_UNITS_CONFIG, type WorkUnitsConfig } from '../../projections/work-units/settings.js';
import { parseConfigSection } from '../config/parse-section.js';

/**
 * The work-unit sections of `.baton/config.yaml` (§15); an invalid file fails with exit 2 naming the
 * key. src/config/work-units.ts reads them without zod.
 */
export function workUnitsConfigFrom(configText: string | undefined): WorkUnitsConfig {
  return parseConfigSection(configText, WorkUnitsConfigSchema, DEFAULT_WORK_UNITS_CONFIG);
}
