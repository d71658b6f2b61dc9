/** Coordination's error codes (coordination.md §16); exit codes live in src/errors.ts EXIT_CODES. */
export const CoordinationErrorCode = {
  SESSION_ENDED: 'SESSION_ENDED',
  UNKNOWN_RECIPIENT: 'UNKNOWN_RECIPIENT',
  AMBIGUOUS_RECIPIENT: 'AMBIGUOUS_RECIPIENT',
  SELF_ADDRESSED: 'SELF_ADDRESSED',
  AMBIGUOUS_SESSION: 'AMBIGUOUS_SESSION',
  WORKSPACE_ID_REQUIRED: 'WORKSPACE_ID_REQUIRED',
  UNREAD_DIRECTED_SIGNALS: 'UNREAD_DIRECTED_SIGNALS',
} as const;
export type CoordinationErrorCode = (typeof CoordinationErrorCode)[keyof typeof CoordinationErrorCode];
