import { ResolveFailure, resolveToken } from '../../projections/coordination/sessions.js';
import type { CoordinationState } from '../../projections/coordination/state.js';
import { BatonError } from '../errors.js';
import { CoordinationErrorCode } from './errors.js';

/** Resolve `--to`/`--for` tokens to canonical identities (§6.2), distinct, in order. */
export function resolveRecipients(state: CoordinationState, now: string, tokens: readonly string[], field = '--to'): string[] {
  const out: string[] = [];
  for (const token of tokens) {
    const result = resolveToken(state, now, token.trim());
    if (!result.ok) {
      if (result.failure === ResolveFailure.ambiguous) {
        throw new BatonError(CoordinationErrorCode.AMBIGUOUS_RECIPIENT, `${field}: "${token}" matches several identities: ${result.candidates.join(', ')}`, {
          field,
          token,
          candidates: result.candidates,
        });
      }
      throw new BatonError(CoordinationErrorCode.UNKNOWN_RECIPIENT, `${field}: "${token}" is no live session id, known agent identity or live display name`, { field, token });
    }
    if (!out.includes(result.identity)) out.push(result.identity);
  }
  return out;
}
