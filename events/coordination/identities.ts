import { z } from 'zod';
import {
  AGENT_IDENTITY_PATTERN,
  CANONICAL_IDENTITY_PATTERN,
  DISPLAY_NAME_PATTERN,
  INITIATIVE_ID_PATTERN,
  INITIATIVE_ID_RULE,
  ROLE_PATTERN,
  SESSION_ID_PATTERN,
  SIGNAL_ID_PATTERN,
  THREAD_ID_PATTERN,
  WORKSPACE_ID_PATTERN,
  WU_ID_PATTERN,
} from './vocabulary.js';
import { noComma, noControlChars, notBlank } from './rules.js';

/**
 * Identity and id rules of coordination.md §1 and §5, and the coordination enums. One place, so the
 * event schemas, the CLI flags and the projections check the same patterns. The constants live in
 * the zod-free vocabulary.ts (re-exported here); refinements use the named predicates of rules.ts,
 * which the compiled validators (events/validators.generated.ts) call too.
 */
export * from './vocabulary.js';

export const isoTime = z.iso.datetime({ offset: false });
export const sessionId = z.string().regex(SESSION_ID_PATTERN, 'must match ^session_[A-Za-z0-9_-]+$ (at most 128 characters)');
export const displayName = z.string().regex(DISPLAY_NAME_PATTERN, 'must match ^[A-Za-z][A-Za-z0-9_-]{0,31}$');
export const agentIdentity = z.string().regex(AGENT_IDENTITY_PATTERN, 'must match ^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$ and not start with session_');
export const canonicalIdentity = z.string().regex(CANONICAL_IDENTITY_PATTERN, 'must be a session id, an agent identity or system');
export const signalId = z.string().regex(SIGNAL_ID_PATTERN, 'must match ^sig-[0-9a-z]{4,64}$');
export const threadId = z.string().regex(THREAD_ID_PATTERN, 'must match ^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$');
export const workspaceId = z.string().regex(WORKSPACE_ID_PATTERN, 'must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$');
export const wuId = z.string().regex(WU_ID_PATTERN, 'must match ^WU-[0-9]{1,9}$');
export const initiativeId = z.string().regex(INITIATIVE_ID_PATTERN, INITIATIVE_ID_RULE);
export const role = z.string().regex(ROLE_PATTERN, 'must match ^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$');
/** A free-text optional field: non-empty after trimming (an empty optional string is an error). */
export const optionalText = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .refine(notBlank, 'must not be empty after trimming')
    .refine(noControlChars, 'must not contain control characters');
export const lane = optionalText(100).refine(noComma, 'must not contain a comma');
export const idempotencyKey = z
  .string()
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters')
  .refine(noControlChars, 'must not contain control characters');
