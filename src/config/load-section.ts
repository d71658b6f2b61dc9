import { INVALID } from '../../events/compiled.js';
import { parseSimpleYaml, UNSURE } from '../simple-yaml.js';
import type { ConfigSection } from './section.js';

/**
 * One section of `.baton/config.yaml` (`configText` undefined when there is no file): its defaults,
 * its value, or INVALID_INPUT naming the field. A file in plain YAML (src/simple-yaml.ts) that
 * passes the compiled validator is read without loading zod or `yaml`, which the short commands
 * (`status`, `orchestrate status`, `mem inbox`) cannot afford; anything else — every YAML or schema
 * error included — is parse-section.ts's answer with the zod schema, word for word.
 */
export async function loadConfigSection<T>(configText: string | undefined, section: ConfigSection<T>): Promise<T> {
  if (configText === undefined) return section.defaults;
  const raw = parseSimpleYaml(configText);
  if (raw !== UNSURE) {
    const parsed = section.compiled.parse(raw ?? {});
    if (parsed !== INVALID) return parsed;
  }
  const [{ parseConfigSection }, schema] = await Promise.all([import('./parse-section.js'), section.schema()]);
  return parseConfigSection(configText, schema, section.defaults);
}
