import { BatonError, ErrorCode } from '../errors.js';
import { asBatonError } from '../store/handle-command.js';

/** Run `body`, rethrowing pure refusals as BatonErrors. */
export async function refusalsAsErrors<T>(body: () => Promise<T> | T): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw asBatonError(error);
  }
}

/**
 * Bad input in `field` whose words name other inputs too (`checkpoint_id and checkpoint_kind must be
 * given together`): each surface names every one of them its own way (the CLI's flags, MCP's arguments).
 */
export function invalidNaming(field: string, others: readonly string[], rule: (...names: string[]) => string): BatonError {
  const say = (name: string, ...names: string[]): string => `${name}: ${rule(...names)}`;
  return new BatonError(ErrorCode.INVALID_INPUT, say(field, ...others), { field }, { field, say, others });
}
