import { z } from 'zod';
import { parseConfigSection } from '../config/parse-section.js';
import { DEFAULT_RESUME_INVOCATION, resumeInvocationOf } from './resume-invocation.js';

/** `resume.invocation` in `.baton/config.yaml` (tasks.md §9.1, §13): an argv array, default `["baton"]`. */
export { DEFAULT_RESUME_INVOCATION };

export const ResumeConfig = z.looseObject({
  resume: z.looseObject({ invocation: z.array(z.string().max(4096)).max(64).optional() }).optional(),
});
export type ResumeSettings = z.output<typeof ResumeConfig>;

/** The invocation of config.yaml's text (undefined: no file); src/config/resume.ts reads it without zod. */
export function resumeInvocationFrom(configText: string | undefined): readonly string[] {
  return resumeInvocationOf(parseConfigSection(configText, ResumeConfig, {}));
}
