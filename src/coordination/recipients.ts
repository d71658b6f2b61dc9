import { recipientsOf } from '../../deciders/recipients.js';
import { Refusal } from '../../deciders/refusal.js';
import type { CoordinationState } from '../../projections/coordination/state.js';
import { BatonError } from '../errors.js';

/**
 * Resolve recipient tokens (`to`, or the inbox's `for`) to canonical identities (§6.2), distinct,
 * in order: the pure rule (deciders/recipients.ts), its refusal named by the input's domain field,
 * which each surface names its own way (the CLI's `--to`, the MCP argument `to`).
 */
export function resolveRecipients(state: CoordinationState, now: string, tokens: readonly string[], field = 'to'): string[] {
  try {
    return recipientsOf(state, now, tokens, field);
  } catch (error) {
    if (!(error instanceof Refusal) || error.input === undefined) throw error;
    // The field first, where the details always named it.
    throw new BatonError(error.code, error.message, { field, ...error.details }, error.input);
  }
}
