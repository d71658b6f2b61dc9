import { parse as parseYaml } from 'yaml';
import { describeZodIssues } from '../../events/validation.js';
import { WorkUnitsConfigSchema } from '../../projections/work-units/settings-schema.js';
import { DEFAULT_WORK_UNITS_CONFIG, type WorkUnitsConfig } from '../../projections/work-units/settings.js';
import { invalidInput } from '../errors.js';

/** The work-unit sections of `.baton/config.yaml` (§15); an invalid file fails with exit 2 naming the key. */
export function workUnitsConfigFrom(configText: string | undefined): WorkUnitsConfig {
  if (configText === undefined) return DEFAULT_WORK_UNITS_CONFIG;
  let raw: unknown;
  try {
    raw = parseYaml(configText) ?? {};
  } catch (error) {
    throw invalidInput(`is not valid YAML (${(error as Error).message.split('\n')[0]})`, 'config.yaml');
  }
  const parsed = WorkUnitsConfigSchema.safeParse(raw);
  if (!parsed.success) throw invalidInput(describeZodIssues(parsed.error, 'config.yaml'));
  return parsed.data;
}
