import { INVALID } from '../../events/compiled.js';
import { parseSimpleYaml, UNSURE } from '../simple-yaml.js';
import { ResumeConfig } from './validators.generated.js';

/** `resume.invocation` when config.yaml does not set it (tasks.md §9.1, §13). */
export const DEFAULT_RESUME_INVOCATION: readonly string[] = ['baton'];

/**
 * `resumeInvocationFrom` (settings.ts) without loading zod or `yaml` when it need not: a config in
 * plain YAML that passes the compiled schema is read here; anything else — including every schema
 * or YAML error — is settings.ts's answer, word for word.
 */
export async function loadResumeInvocation(configText: string | undefined): Promise<readonly string[]> {
  if (configText === undefined) return DEFAULT_RESUME_INVOCATION;
  const raw = parseSimpleYaml(configText);
  if (raw !== UNSURE) {
    const parsed = ResumeConfig.parse(raw ?? {});
    if (parsed !== INVALID) return parsed.resume?.invocation ?? DEFAULT_RESUME_INVOCATION;
  }
  return (await import('./settings.js')).resumeInvocationFrom(configText);
}
