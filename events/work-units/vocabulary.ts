import { z } from 'zod';
import { CONTROL_CHARS, initiativeId } from '../coordination/identities.js';
import { isValidBranchName, SLUG_PATTERN } from './terms.js';

/**
 * The work-unit vocabulary of work-units.md §1, §3 and §6: ids, enums and value rules shared by the
 * event schemas, the CLI flags, the YAML import and the projections.
 */
export { wuId, initiativeId } from '../coordination/identities.js';
export * from './terms.js';

export const initiativeSlug = z.string().regex(SLUG_PATTERN, 'must match ^[a-z0-9][a-z0-9-]{0,63}$');
/** A WU's `initiative` field: an INIT id or a slug. */
export const initiativeRef = z.union([initiativeId, initiativeSlug], 'must be an INIT id (^INIT-[0-9A-Z][0-9A-Z-]*$) or a slug (^[a-z0-9][a-z0-9-]{0,63}$)');

export const laneName = z
  .string()
  .refine((s) => s.trim().length >= 1 && s.trim().length <= 100, 'must be 1–100 characters after trimming')
  .refine((s) => !CONTROL_CHARS.test(s), 'must not contain control characters')
  .refine((s) => !s.includes(','), 'must not contain a comma');

/** Workspace-relative POSIX path or glob: no leading `/`, no `..` segment, no backslash, no NUL. */
export const codePath = z
  .string()
  .min(1, 'must not be empty')
  .max(300, 'must be at most 300 characters')
  .refine((s) => !s.startsWith('/'), 'must be workspace-relative (no leading /)')
  .refine((s) => !s.split('/').includes('..'), 'must not have a .. segment')
  .refine((s) => !s.includes('\\'), 'must not contain a backslash')
  .refine((s) => !s.includes('\0'), 'must not contain NUL');

export const worktreePath = z
  .string()
  .min(1, 'must not be empty')
  .max(1000, 'must be at most 1,000 characters')
  .refine((s) => !s.includes('\0') && !CONTROL_CHARS.test(s), 'must not contain control characters');

export const branchName = z.string().refine(isValidBranchName, "must be a valid git branch name (git's ref-name rules)");

/** Free text with a bound: trimmed non-empty, no control characters other than newline and tab. */
export const text = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    // eslint-disable-next-line no-control-regex
    .refine((s) => !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(s), 'must not contain control characters');
export const requiredText = (max: number) => text(max).refine((s) => s.trim().length > 0, 'must not be empty after trimming');
