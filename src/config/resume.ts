import type { ResumeSettings } from '../tasks/settings.js';
import { resumeInvocationOf } from '../tasks/resume-invocation.js';
import { ResumeConfig } from '../tasks/validators.generated.js';
import { loadConfigSection } from './load-section.js';
import type { ConfigSection } from './section.js';

/** The `resume` section of config.yaml (tasks.md §9.1, §13). */
export const RESUME_CONFIG_SECTION: ConfigSection<ResumeSettings> = {
  compiled: ResumeConfig,
  schema: () => import('../tasks/settings.js').then((m) => m.ResumeConfig),
  defaults: {},
};

/** `resumeInvocationFrom` (tasks/settings.ts), loading zod and `yaml` only when it must. */
export async function loadResumeInvocation(configText: string | undefined): Promise<readonly string[]> {
  return resumeInvocationOf(await loadConfigSection(configText, RESUME_CONFIG_SECTION));
}
