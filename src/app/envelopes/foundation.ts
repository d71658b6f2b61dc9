import { z } from 'zod';

/** The JSON envelopes the foundation's commands print, each validated before printing. */
const generatedAt = z.iso.datetime();

/** Every envelope starts `{ "v": 1, "type": …, "generated_at": … }`, in that order. */
function envelope<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.strictObject({ v: z.literal(1), type: z.literal(type), generated_at: generatedAt, ...shape });
}
const hash = z.string().regex(/^[0-9a-f]{64}$/);

export const WorkspaceEnvelope = envelope('workspace', {
  dir: z.string(),
  created: z.boolean(),
  /** `.baton/` in the workspace's `.gitignore`: added now (`--gitignore`), already there, or not there. */
  gitignore: z.enum(['added', 'already_ignored', 'not_ignored']),
  /** Commands a new user runs next. */
  next_steps: z.array(z.strictObject({ command: z.string(), why: z.string() })),
});

export const AppendedEnvelope = envelope('appended', {
  events: z.array(z.strictObject({ seq: z.number().int().min(1), id: z.string(), type: z.string(), stream: z.string(), hash })),
  deduplicated: z.boolean(),
});

/**
 * `log append --events` without `--each`: one summary for the whole file instead of an `appended`
 * envelope per call listing every event. Its own type, so a reader expecting `events[]` is never
 * handed another shape under the same name. `head_hash` is the hash of the event at `last_seq`.
 */
export const AppendSummaryEnvelope = envelope('append_summary', {
  /** Events stored by (or, when deduplicated, already stored for) the calls that landed. */
  count: z.number().int().min(1),
  /** Append calls that landed: one per line, or 1 with `--batch`. */
  calls: z.number().int().min(1),
  first_seq: z.number().int().min(1),
  last_seq: z.number().int().min(1),
  head_hash: hash,
  /** How many of `count` an idempotency key had already stored (nothing new was written for them). */
  deduplicated: z.number().int().min(0),
});

export const LogVerificationEnvelope = envelope('log_verification', {
  ok: z.boolean(),
  head_seq: z.number().int().min(0),
  checked: z.number().int().min(0),
  first_bad: z
    .strictObject({
      seq: z.number().int(),
      offset: z.number().int(),
      segment: z.string().optional(),
      reason: z.string(),
      /** The bad bytes are the uncommitted tail: settled by `baton log repair` or the next append. */
      tail: z.enum(['unterminated_event', 'torn']).optional(),
    })
    .nullable(),
  /** When not ok: how to get a sound log back (the intact prefix, exported and imported into a fresh workspace). */
  recovery: z.strictObject({ intact_to: z.number().int().min(0), steps: z.array(z.string()).min(1) }).optional(),
});

/** `baton log repair`: what was done about the bytes after the last complete event. */
export const LogRepairEnvelope = envelope('log_repair', {
  /** `none`: the log ended with a complete event; `repaired`: a whole last event's newline restored; `quarantined`: a torn write moved aside. */
  action: z.enum(['none', 'repaired', 'quarantined']),
  /** The data of the `log.repaired` or `log.recovered` event recorded, when something was done. */
  record: z.record(z.string(), z.unknown()).nullable(),
  head_seq: z.number().int().min(0),
});

export const LogStatsEnvelope = envelope('log_stats', {
  head_seq: z.number().int().min(0),
  head_hash: hash,
  events: z.number().int().min(0),
  streams: z.number().int().min(0),
  segments: z.number().int().min(0),
  bytes: z.number().int().min(0),
  by_type: z.record(z.string(), z.number().int().min(0)),
});

export const LogExportedEnvelope = envelope('log_exported', {
  events: z.number().int().min(0),
  head_seq: z.number().int().min(0),
  head_hash: hash,
});

export const LogImportedEnvelope = envelope('log_imported', {
  events: z.number().int().min(0),
  head_seq: z.number().int().min(0),
  head_hash: hash,
});

/** A view printed by `replay`: any projection's envelope, which always carries these fields. */
export const ViewEnvelope = z.looseObject({ v: z.literal(1), type: z.string().min(1), generated_at: generatedAt });
