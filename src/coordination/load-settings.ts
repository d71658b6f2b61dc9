import { INVALID } from '../../events/compiled.js';
import { parseSimpleYaml, UNSURE } from '../simple-yaml.js';
import { CoordinationConfigSchema } from '../validators.generated.js';
import { DEFAULT_COORDINATION_SETTINGS, settingsFromConfig, type CoordinationSettings } from './settings-values.js';

/**
 * `coordinationSettingsFrom` without loading zod or `yaml` when it need not: a config in plain YAML
 * that passes the compiled schema is read here; anything else — including every schema or YAML
 * error — is settings.ts's answer, word for word.
 */
export async function loadCoordinationSettings(configText: string | undefined): Promise<CoordinationSettings> {
  if (configText === undefined) return DEFAULT_COORDINATION_SETTINGS;
  const raw = parseSimpleYaml(configText);
  if (raw !== UNSURE) {
    const parsed = CoordinationConfigSchema.parse(raw ?? {});
    if (parsed !== INVALID) return settingsFromConfig(parsed);
  }
  return (await import('./settings.js')).coordinationSettingsFrom(configText);
}
