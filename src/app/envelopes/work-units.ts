import { z } from 'zod';
import { CLAIMED_MODES } from '../../../events/work-units/vocabulary.js';
import { PlanDocument, StatusDocument, WrittenStatusDocument } from '../../../projections/work-units/documents.js';

/** The JSON envelopes of the work-unit commands (work-units.md), each validated before printing. */
const generatedAt = z.iso.datetime();
function envelope<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.strictObject({ v: z.literal(1), type: z.literal(type), generated_at: generatedAt, ...shape });
}
const appended = z.array(z.strictObject({ seq: z.number().int().min(1), type: z.string() }));

export const InitiativeEnvelope = envelope('initiative', {
  initiative: z.string(),
  title: z.string(),
  slug: z.string().nullable(),
  lanes: z.array(z.string()),
  created: z.boolean(),
  appended,
});

export const WuDefinitionEnvelope = envelope('wu_definition', {
  wu_id: z.string(),
  result: z.enum(['defined', 'updated', 'unchanged']),
  changed_fields: z.array(z.string()),
  appended,
});

export const WuLifecycleEnvelope = envelope('wu_lifecycle', {
  wu_id: z.string(),
  action: z.enum(['claim', 'checkpoint', 'return', 'block', 'unblock', 'release']),
  appended,
  yaml_status: z.string().nullable(),
  /** The WU has a YAML file Baton reads (`wu import`, `import lumenflow`): `yaml_status` is what its status says. */
  has_yaml: z.boolean(),
  claim: z
    .strictObject({
      session_id: z.string().nullable(),
      mode: z.enum(CLAIMED_MODES),
      worktree_path: z.string().nullable(),
      branch: z.string().nullable(),
      takeover_from: z.string().nullable(),
    })
    .optional(),
});

export const WuDoneEnvelope = envelope('wu_done', {
  wu_id: z.string(),
  stamp_path: z.string(),
  already_exists: z.boolean(),
  appended,
});

export const WuImportEnvelope = envelope('wu_import', {
  files: z.array(
    z.strictObject({
      path: z.string(),
      wu_id: z.string().nullable(),
      result: z.enum(['defined', 'changed', 'unchanged', 'skipped']),
      changed_fields: z.array(z.string()),
    }),
  ),
  appended: z.number().int().min(0),
});

const { generated_at: _g1, ...statusShape } = WrittenStatusDocument.shape;
export const InitiativeStatusEnvelope = z.looseObject({ v: z.literal(1), type: z.literal('initiative_status'), generated_at: generatedAt, ...statusShape });
const { generated_at: _g2, ...planShape } = PlanDocument.shape;
export const InitiativePlanEnvelope = z.looseObject({
  v: z.literal(1),
  type: z.literal('initiative_plan'),
  generated_at: generatedAt,
  dry_run: z.literal(true),
  ...planShape,
});

export const InitiativeLaunchEnvelope = envelope('initiative_launch', {
  initiative: z.string(),
  launch_attempt: z.number().int().min(0).nullable(),
  attempt_path: z.string().nullable(),
  handoffs: z.array(
    z.strictObject({
      wu_id: z.string(),
      handoff_artifact_path: z.string(),
      handoff_format: z.enum(['markdown', 'xml']),
      relaunch: z.boolean(),
      content: z.string().optional(),
    }),
  ),
  status: StatusDocument,
});

export const WuExplanationEnvelope = envelope('wu_explanation', {
  wu_id: z.string(),
  initiative: z.string().nullable(),
  orchestration_state: z.string(),
  rule: z.number().int().min(1).max(13),
  next_safe_action: z.strictObject({ type: z.string(), reason: z.string() }).nullable(),
  predicates: z.array(z.strictObject({ name: z.string(), value: z.unknown(), evidence: z.array(z.number().int()) })),
  evidence: z.array(z.strictObject({ seq: z.number().int(), type: z.string(), at: z.string(), actor: z.string(), stream: z.string(), summary: z.string() })),
  integrity_findings: z.array(z.strictObject({ seq: z.number().int(), stream: z.string(), type: z.string(), code: z.string(), message: z.string() })),
  claim: z
    .strictObject({
      seq: z.number().int(),
      unowned: z.boolean(),
      session: z.string().nullable(),
      agent_identity: z.string().nullable(),
      live: z.boolean(),
      last_seen: z.string().nullable(),
      lease_until: z.string().nullable(),
      takeover_from: z.string().nullable(),
      reason: z.string().nullable(),
      forced: z.array(z.string()),
    })
    .nullable(),
});
