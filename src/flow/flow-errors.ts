import { BatonError, ErrorCode } from '../errors.js';

/** The error codes phase-gates.md adds (§11); their exit code (2) is in src/errors.ts. */
export const FlowErrorCode = {
  NO_FLOW: 'NO_FLOW',
  FLOW_ACTIVE: 'FLOW_ACTIVE',
  FLOW_ENDED: 'FLOW_ENDED',
  NOT_TEAM_MODE: 'NOT_TEAM_MODE',
  NO_DEEP_DIVE: 'NO_DEEP_DIVE',
  DEEP_DIVE_EXISTS: 'DEEP_DIVE_EXISTS',
} as const;
export type FlowErrorCode = (typeof FlowErrorCode)[keyof typeof FlowErrorCode];

export function refuse(code: FlowErrorCode | typeof ErrorCode.ILLEGAL_TRANSITION | typeof ErrorCode.INVALID_INPUT, message: string): BatonError {
  return new BatonError(code, message);
}

export const NO_FLOW_MESSAGE = 'No flow started. Run baton flow init first.';
