import { z } from 'zod';

/** The JSON envelopes of `import lumenflow` and `initiative update`, each validated before printing. */
const generatedAt = z.iso.datetime();
function envelope<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.strictObject({ v: z.literal(1), type: z.literal(type), generated_at: generatedAt, ...shape });
}
const count = z.number().int().min(0);

export const LumenflowImportEnvelope = envelope('lumenflow_import', {
  repo: z.string(),
  dry_run: z.boolean(),
  directories: z.strictObject({ wu_dir: z.string(), initiatives_dir: z.string(), stamps_dir: z.string(), state_dir: z.string() }),
  settings: z.strictObject({ lanes: count, max_active_workers: z.number().int().nullable(), recorded: z.boolean() }),
  initiatives: z.strictObject({
    defined: count,
    changed: count,
    unchanged: count,
    changes: z.array(
      z.strictObject({
        path: z.string(),
        initiative: z.string().nullable(),
        result: z.enum(['defined', 'changed', 'unchanged']),
        changed_fields: z.array(z.string()),
      }),
    ),
  }),
  wus: z.strictObject({
    defined: count,
    changed: count,
    unchanged: count,
    changes: z.array(
      z.strictObject({
        path: z.string(),
        wu_id: z.string().nullable(),
        result: z.enum(['defined', 'changed', 'unchanged', 'skipped']),
        changed_fields: z.array(z.string()),
      }),
    ),
  }),
  wu_events: z.strictObject({ lines: count, imported: count, already_imported: count, malformed: count }),
  stamps: z.strictObject({ files: count, recorded: count }),
  skipped_invalid: count,
  findings: z.array(
    z.strictObject({
      severity: z.enum(['error', 'integrity', 'warning', 'info']),
      code: z.string(),
      path: z.string().nullable(),
      line: z.number().int().min(1).nullable(),
      wu_id: z.string().nullable(),
      message: z.string(),
    }),
  ),
  appended: count,
});

export const InitiativeUpdateEnvelope = envelope('initiative_update', {
  initiative: z.string(),
  result: z.enum(['updated', 'unchanged']),
  changed_fields: z.array(z.string()),
  appended: z.array(z.strictObject({ seq: z.number().int().min(1), type: z.string() })),
});
