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
} as const;
export type WorkUnitErrorCode = (typeof WorkUnitErrorCode)[keyof typeof WorkUnitErrorCode];
