import { constEnum } from '../events/const-enum.js';
/** The shared error codes of the architecture spec and their exit codes. Domains add their own. */
export const ErrorCode = constEnum(['INVALID_INPUT', 'UNKNOWN_ID', 'ILLEGAL_TRANSITION', 'LOG_CORRUPT', 'INTEGRITY_BLOCKED', 'CONFLICT', 'IDEMPOTENCY_CONFLICT', 'STORE_UNAVAILABLE', 'UNEXPECTED', 'INTERRUPTED']);
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The work-unit error codes (work-units.md §18); exit codes live in src/errors.ts EXIT_CODES. */
export const WorkUnitErrorCode = constEnum(['ALREADY_EXISTS', 'NOT_CLAIMED', 'WU_BLOCKED', 'DEPENDENCY_CYCLE', 'GATE_FAILED', 'CONTAMINATED', 'INTEGRITY', 'ALREADY_CLAIMED']);
export type WorkUnitErrorCode = (typeof WorkUnitErrorCode)[keyof typeof WorkUnitErrorCode];
