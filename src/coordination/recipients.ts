import { recipientsOf } from '../../deciders/recipients.js';
import { Refusal } from '../../deciders/refusal.js';
import type { CoordinationState } from '../../projections/coordination/state.js';
import { BatonError } from '../errors.js';

/**
 * Resolve `--to`/`--for` tokens to canonical identities (§6.2), distinct, in order: the pure rule
 * (deciders/recipients.ts) with its refusal worded by the flag the caller names.
 */
export function resolveRecipients(state: CoordinationState, now: string, tokens: readonly string[], field = '--to'): string[] {
  // The pure rule names the domain field (`to`); a surface names it its own way (`--to`, `to`).
  const domainField = field.replace(/^--/, '').replace(/-/g, '_');
  try {
    return recipientsOf(state, now, tokens, domainField);
  } catch (error) {
    if (!(error instanceof Refusal) || error.input === undefined) throw error;
    return rethrow(error, field);
  }
}

function rethrow(refusal: Refusal, flag: string): never {
  // The flag first, where the details always named it.
  const details: Record<string, unknown> = { field: flag, ...refusal.details };
  details['field'] = flag;
  throw new BatonError(refusal.code, refusal.input!.say(flag), details, refusal.input);
}
