import { z } from 'zod';

/**
 * The error envelope every command prints in JSON mode (output.ts builds it without zod, so a
 * failing short command loads none). `@timestamp` repeats `generated_at`: the orchestration
 * wizard's consumers read it (tasks.md §10). This schema is the published one (schemas/).
 */
export const ErrorEnvelope = z.strictObject({
  v: z.literal(1),
  type: z.literal('error'),
  generated_at: z.iso.datetime(),
  '@timestamp': z.iso.datetime(),
  code: z.string().regex(/^[A-Z][A-Z0-9_]*$/),
  message: z.string().min(1),
  details: z.record(z.string(), z.unknown()).optional(),
});
