import { z } from 'zod';
import { ACTION_TYPES, CLAIMED_MODES, HANDOFF_FORMATS, ORCHESTRATION_STATES } from '../../events/work-units/terms.js';

/**
 * The orchestration documents of work-units.md §9 (plan.json, launch.json, status.json) as zod
 * schemas — the single source of their types — and the validating parsers of §11: they never cast,
 * an unknown state throws naming its path, the legacy `ready` reads as `eligible`, unknown keys are
 * kept. Key order in the schemas is the order written.
 */
const time = z.iso.datetime();
const wave = z.number().int().min(0);
const orchestrationState = z.preprocess((v) => (v === 'ready' ? 'eligible' : v), z.enum(ORCHESTRATION_STATES));

export const PlanWave = z.looseObject({
  planned_wave: wave,
  logical_wave: wave,
  logical_waves: z.array(wave),
  wus: z.array(z.looseObject({ id: z.string(), lane: z.string(), logical_wave: wave })),
});
export const DeferredEntry = z.looseObject({ wu_id: z.string(), reason: z.string() });

export const PlanDocument = z.looseObject({
  initiative: z.string(),
  launch_attempt: wave,
  generated_at: time,
  max_active_workers: z.number().int().min(0).nullable(),
  logical_waves: z.array(wave),
  waves: z.array(PlanWave),
  deferred: z.array(DeferredEntry),
});
export type PlanDocument = z.output<typeof PlanDocument>;

export const LaunchRow = z.looseObject({
  wu_id: z.string(),
  lane: z.string(),
  logical_wave: wave,
  launch_attempt: wave,
  handoff_artifact_path: z.string(),
  handoff_format: z.enum(HANDOFF_FORMATS),
  orchestration_state: orchestrationState,
  emitted_at: time,
  relaunch: z.boolean(),
  content_sha256: z.string(),
});
export const LaunchDocument = z.looseObject({
  initiative: z.string(),
  launch_attempt: wave,
  generated_at: time,
  client: z.string(),
  logical_waves: z.array(wave),
  handoffs: z.array(LaunchRow),
});
export type LaunchDocument = z.output<typeof LaunchDocument>;

export const NextSafeAction = z.looseObject({
  type: z.enum(ACTION_TYPES),
  wu_id: z.string(),
  reason: z.string(),
  logical_wave: wave,
  wu_ids: z.array(z.string()).optional(),
});
export type NextSafeAction = z.output<typeof NextSafeAction>;

export const IntegrityFindingSchema = z.looseObject({ seq: z.number().int(), stream: z.string(), type: z.string(), code: z.string(), message: z.string() });

function statusSchemas(state: z.ZodType<(typeof ORCHESTRATION_STATES)[number]>) {
  const StatusRow = z.looseObject({
    wu_id: z.string(),
    title: z.string(),
    lane: z.string().nullable(),
    orchestration_state: state,
    yaml_status: z.string().nullable(),
    logical_wave: wave,
    planned_wave: wave.nullable(),
    launch_attempt: wave.nullable(),
    claimed_mode: z.enum(CLAIMED_MODES).nullable(),
    contamination_paths: z.array(z.string()),
    queued_by_capacity: z.boolean(),
    launch_blocked_by: z.array(z.enum(['integrity', 'capacity', 'lane'])),
    blockers: z.array(z.string()),
    last_activity_at: time.nullable(),
    worktree_path: z.string().nullable(),
  });
  const StatusDocument = z.looseObject({
    initiative: z.string(),
    launch_attempt: wave.nullable(),
    generated_at: time,
    logical_waves: z.array(wave),
    available_capacity: z.number().int().min(0).nullable(),
    max_active_workers: z.number().int().min(0).nullable(),
    blocked_by_integrity: z.boolean(),
    integrity_findings: z.array(IntegrityFindingSchema),
    next_safe_actions: z.array(NextSafeAction),
    wus: z.array(StatusRow),
  });
  return { StatusRow, StatusDocument };
}

const read = statusSchemas(orchestrationState);
export const StatusRow = read.StatusRow;
export type StatusRow = z.output<typeof StatusRow>;
export const StatusDocument = read.StatusDocument;
export type StatusDocument = z.output<typeof StatusDocument>;

/**
 * The status document as Baton writes it (the `initiative_status` envelope's schema): the same,
 * except that `orchestration_state` is one of the states as it is — Baton never writes the legacy
 * `ready` (§11), which only the parsers read as `eligible`.
 */
export const WrittenStatusDocument = statusSchemas(z.enum(ORCHESTRATION_STATES)).StatusDocument;

/** A zod failure as one message naming the first bad path (`wus[2].orchestration_state`). */
function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc === '' ? String(key) : `${acc}.${String(key)}`), '');
  throw new Error(`invalid ${what}: ${path || '(root)'}: ${issue.message}`);
}

export function parseOrchestrationPlanDocument(value: unknown): PlanDocument {
  return parseOrThrow(PlanDocument, value, 'plan document');
}
export function parseOrchestrationLaunchDocument(value: unknown): LaunchDocument {
  return parseOrThrow(LaunchDocument, value, 'launch document');
}
export function parseOrchestrationStatusDocument(value: unknown): StatusDocument {
  return parseOrThrow(StatusDocument, value, 'status document');
}
