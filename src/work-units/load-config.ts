import { INVALID } from '../../events/compiled.js';
import { DEFAULT_WORK_UNITS_CONFIG, type WorkUnitsConfig } from '../../projections/work-units/settings.js';
import { parseSimpleYaml, UNSURE } from '../simple-yaml.js';
import { WorkUnitsConfigSchema } from './validators.generated.js';

/**
 * `workUnitsConfigFrom` (config.ts) without loading zod or `yaml` when it need not: a config in
 * plain YAML that passes the compiled schema is read here; anything else — including every schema
 * or YAML error — is config.ts's answer, word for word.
 */
export async function loadWorkUnitsConfig(configText: string | undefined): Promise<WorkUnitsConfig> {
  if (configText === undefined) return DEFAULT_WORK_UNITS_CONFIG;
  const raw = parseSimpleYaml(configText);
  if (raw !== UNSURE) {
    const parsed = WorkUnitsConfigSchema.parse(raw ?? {});
    if (parsed !== INVALID) return parsed;
  }
  return (await import('./config.js')).workUnitsConfigFrom(configText);
}
