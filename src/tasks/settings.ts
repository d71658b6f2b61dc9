import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { describeZodIssues } from '../../events/validation.js';
import { invalidInput } from '../errors.js';

import { DEFAULT_RESUME_INVOCATION } from './load-settings.js';

/** `resume.invocation` in `.baton/config.yaml` (tasks.md §9.1, §13): an argv array, default `["baton"]`. */
export { DEFAULT_RESUME_INVOCATION };

export const ResumeConfig = z.looseObject({
  resume: z.looseObject({ invocation: z.array(z.string().max(4096)).max(64).optional() }).optional(),
});

export function resumeInvocationFrom(configText: string | undefined): readonly string[] {
  if (configText === undefined) return DEFAULT_RESUME_INVOCATION;
  let raw: unknown;
  try {
    raw = parseYaml(configText) ?? {};
  } catch (error) {
    throw invalidInput(`is not valid YAML (${(error as Error).message.split('\n')[0]})`, 'config.yaml');
  }
  const parsed = ResumeConfig.safeParse(raw);
  if (!parsed.success) throw invalidInput(describeZodIssues(parsed.error, 'config.yaml'));
  return parsed.data.resume?.invocation ?? DEFAULT_RESUME_INVOCATION;
}
