import type { ResumeSettings } from './settings.js';

/** `resume.invocation` when config.yaml does not set it (tasks.md §9.1, §13). */
export const DEFAULT_RESUME_INVOCATION: readonly string[] = ['baton'];

/** The argv that resumes a session, from config.yaml's `resume` section. */
export function resumeInvocationOf(config: ResumeSettings): readonly string[] {
  return config.resume?.invocation ?? DEFAULT_RESUME_INVOCATION;
}
