import { BatonError, ErrorCode } from '../errors.js';
import type { FlowErrorCode } from '../../deciders/flow-refusal.js';

/** The flow codes live with the flow deciders (deciders/flow-refusal.ts); the shell's input checks refuse with them too. */
export { FlowErrorCode, NO_FLOW_MESSAGE } from '../../deciders/flow-refusal.js';

export function refuse(code: FlowErrorCode | typeof ErrorCode.ILLEGAL_TRANSITION | typeof ErrorCode.INVALID_INPUT, message: string): BatonError {
  return new BatonError(code, message);
}

/**
 * Bad input in a flow command's field (`iteration`, `focus_path`), or in a combination of fields
 * (`complete` with `abort`): worded by `say` with the domain names until a surface names each its
 * own way (the CLI its flag, `--focus-path`; MCP its argument).
 */
export function invalidFlowInput(field: string, say: (name: string, ...others: string[]) => string, others: readonly string[] = []): BatonError {
  const input = others.length === 0 ? { field, say } : { field, say, others };
  return new BatonError(ErrorCode.INVALID_INPUT, say(field, ...others), { field }, input);
}
