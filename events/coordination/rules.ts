import { CONTROL_CHARS } from './vocabulary.js';

/**
 * The predicates behind the coordination schemas' refinements, named and zod-free: the zod
 * schemas refine with them and the compiled validators (events/validators.generated.ts) import
 * them, so both run the very same rule. A refinement the generator cannot name is a build error.
 */

/** Non-empty after trimming. */
export const notBlank = (s: string): boolean => s.trim().length > 0;
export const noControlChars = (s: string): boolean => !CONTROL_CHARS.test(s);
export const noComma = (s: string): boolean => !s.includes(',');

interface RecipientsShape {
  recipients: string[];
  target_agent?: string | undefined;
}

/** The alias rule of a signal (§5.4): recipients distinct, … */
export const recipientsDistinct = (v: RecipientsShape): boolean => new Set(v.recipients).size === v.recipients.length;
/** … no `target_agent` on a broadcast (recipients []), … */
export const noAliasOnBroadcast = (v: RecipientsShape): boolean => v.recipients[0] !== undefined || v.target_agent === undefined;
/** … and on a directed signal `target_agent` equals recipients[0] (the deprecated alias). */
export const aliasIsFirstRecipient = (v: RecipientsShape): boolean => v.recipients[0] === undefined || v.target_agent === v.recipients[0];

/** A legacy signal record names its id (`signal_id`, or the legacy `id`) … */
export const hasSignalId = (v: { id?: unknown; signal_id?: unknown }): boolean => v.id !== undefined || v.signal_id !== undefined;
/** … and its sender (`sender_identity`, or the legacy `sender`). */
export const hasSenderIdentity = (v: { sender?: unknown; sender_identity?: unknown }): boolean => v.sender !== undefined || v.sender_identity !== undefined;
/** A record carrying `schema_version` must be today's shape, so a legacy one has none. */
export const hasNoSchemaVersion = (v: object): boolean => !('schema_version' in v);
