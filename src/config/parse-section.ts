import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { describeZodIssues } from '../../events/validation.js';
import { invalidInput } from '../errors.js';

/**
 * The text of `.baton/config.yaml` (undefined when there is no file: `defaults`) read with `yaml`
 * and checked with one section's zod schema: the schema's output, or INVALID_INPUT (exit 2) naming
 * the field (`config.yaml.<path>: <rule>`). This is the synchronous path and the one that words
 * errors; load-section.ts reads a plain valid file without loading `yaml` or zod.
 */
export function parseConfigSection<T>(configText: string | undefined, schema: z.ZodType<T>, defaults: T): T {
  if (configText === undefined) return defaults;
  let raw: unknown;
  try {
    raw = parseYaml(configText) ?? {};
  } catch (error) {
    throw invalidInput(`is not valid YAML (${(error as Error).message.split('\n')[0]})`, 'config.yaml');
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw invalidInput(describeZodIssues(parsed.error, 'config.yaml'));
  return parsed.data;
}
