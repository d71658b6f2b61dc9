import { z } from 'zod';
import { requiredText } from './work-units/vocabulary.js';

/**
 * What `baton audit --fix` writes on each corrective event it appends: the code of the finding the
 * event settles and why, so the log says the record was corrected by an audit and on what grounds.
 * Absent on the same event types appended by their own commands.
 */
export const AUDIT_CODE_PATTERN = /^[A-Z][A-Z0-9_]{1,63}$/;

export const AuditMark = z.strictObject({
  code: z.string().regex(AUDIT_CODE_PATTERN, 'must be an audit finding code (^[A-Z][A-Z0-9_]{1,63}$)'),
  reason: requiredText(2000),
});
export type AuditMark = z.infer<typeof AuditMark>;
