/**
 * The shared error codes of the architecture spec and their exit codes. Domains add their own.
 * Literal objects (not constEnum): every command loads this module first, and it must stay one
 * small file with no imports.
 */
export const ErrorCode = {
  INVALID_INPUT: 'INVALID_INPUT',
  UNKNOWN_ID: 'UNKNOWN_ID',
  ILLEGAL_TRANSITION: 'ILLEGAL_TRANSITION',
  LOG_CORRUPT: 'LOG_CORRUPT',
  INTEGRITY_BLOCKED: 'INTEGRITY_BLOCKED',
  CONFLICT: 'CONFLICT',
  IDEMPOTENCY_CONFLICT: 'IDEMPOTENCY_CONFLICT',
  STORE_UNAVAILABLE: 'STORE_UNAVAILABLE',
  UNEXPECTED: 'UNEXPECTED',
  INTERRUPTED: 'INTERRUPTED',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The work-unit error codes (work-units.md §18); exit codes live in src/errors.ts EXIT_CODES. */
export const WorkUnitErrorCode = {
  ALREADY_EXISTS: 'ALREADY_EXISTS',
  NOT_CLAIMED: 'NOT_CLAIMED',
  WU_BLOCKED: 'WU_BLOCKED',
  DEPENDENCY_CYCLE: 'DEPENDENCY_CYCLE',
  GATE_FAILED: 'GATE_FAILED',
  CONTAMINATED: 'CONTAMINATED',
  INTEGRITY: 'INTEGRITY',
  ALREADY_CLAIMED: 'ALREADY_CLAIMED',
  NOT_HOLDER: 'NOT_HOLDER',
  DEPENDENCIES_NOT_DONE: 'DEPENDENCIES_NOT_DONE',
  LANE_AT_WIP_LIMIT: 'LANE_AT_WIP_LIMIT',
  NO_IDENTITY: 'NO_IDENTITY',
} as const;
export type WorkUnitErrorCode = (typeof WorkUnitErrorCode)[keyof typeof WorkUnitErrorCode];
