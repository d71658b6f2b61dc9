import { ResolveFailure, resolveToken } from '../projections/coordination/sessions.js';
import type { CoordinationState } from '../projections/coordination/state.js';
import { refuseField } from './refusal.js';

/** Coordination's refusal codes for addressing (coordination.md §16). */
export const RecipientErrorCode = { UNKNOWN_RECIPIENT: 'UNKNOWN_RECIPIENT', AMBIGUOUS_RECIPIENT: 'AMBIGUOUS_RECIPIENT' } as const;

/**
 * Recipient tokens resolved to canonical identities (§6.2), distinct, in order. `field` is the
 * input's domain name (`to`, `for`); a token that names nobody, or several, is refused naming it.
 */
export function recipientsOf(state: CoordinationState, now: string, tokens: readonly string[], field = 'to'): string[] {
  const out: string[] = [];
  for (const token of tokens) {
    const result = resolveToken(state, now, token.trim());
    if (!result.ok) {
      if (result.failure === ResolveFailure.ambiguous) {
        throw refuseField(
          RecipientErrorCode.AMBIGUOUS_RECIPIENT,
          field,
          (name) => `${name}: "${token}" matches several identities: ${result.candidates.join(', ')}`,
          {
            token,
            candidates: result.candidates,
          },
        );
      }
      throw refuseField(
        RecipientErrorCode.UNKNOWN_RECIPIENT,
        field,
        (name) => `${name}: "${token}" is no live session id, known agent identity or live display name`,
        { token },
      );
    }
    if (!out.includes(result.identity)) out.push(result.identity);
  }
  return out;
}
