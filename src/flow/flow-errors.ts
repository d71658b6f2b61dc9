import { BatonError, type ErrorCode } from '../errors.js';
import type { FlowErrorCode } from '../../deciders/flow-refusal.js';

/** The flow codes live with the flow deciders (deciders/flow-refusal.ts); the shell's input checks refuse with them too. */
export { FlowErrorCode, NO_FLOW_MESSAGE } from '../../deciders/flow-refusal.js';

export function refuse(code: FlowErrorCode | typeof ErrorCode.ILLEGAL_TRANSITION | typeof ErrorCode.INVALID_INPUT, message: string): BatonError {
  return new BatonError(code, message);
}
