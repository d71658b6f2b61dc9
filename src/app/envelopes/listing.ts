import { z } from 'zod';
import { ORCHESTRATION_STATES } from '../../../events/work-units/vocabulary.js';

/** The JSON envelopes of `wu list | show` and `initiative list | show`, validated before printing. */
const generatedAt = z.iso.datetime();
function envelope<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.strictObject({ v: z.literal(1), type: z.literal(type), generated_at: generatedAt, ...shape });
}
const orchestrationState = z.enum(ORCHESTRATION_STATES);
const seqAt = { seq: z.number().int().min(1), at: z.string() };

export const WuListRow = z.strictObject({
  wu_id: z.string(),
  initiative: z.string().nullable(),
  title: z.string(),
  lane: z.string().nullable(),
  wu_type: z.string(),
  priority: z.string(),
  yaml_status: z.string().nullable(),
  orchestration_state: orchestrationState,
  dependencies: z.array(z.string()),
  blocked_by: z.array(z.string()),
});

export const WuListEnvelope = envelope('wu_list', {
  filters: z.strictObject({ initiative: z.string().nullable(), state: orchestrationState.nullable(), lane: z.string().nullable() }),
  count: z.number().int().min(0),
  wus: z.array(WuListRow),
});

export const WuShowEnvelope = envelope('wu_detail', {
  ...WuListRow.shape,
  description: z.string(),
  acceptance: z.array(z.string()),
  code_paths: z.array(z.string()),
  blocks: z.array(z.string()),
  rule: z.number().int().min(1).max(13),
  reason: z.string().nullable(),
  claim: z
    .strictObject({ ...seqAt, session_id: z.string().nullable(), mode: z.string(), worktree_path: z.string().nullable(), branch: z.string().nullable() })
    .nullable(),
  last_checkpoint: z
    .strictObject({ ...seqAt, actor: z.string(), summary: z.string(), note: z.string(), progress: z.string().nullable(), next_steps: z.string().nullable() })
    .nullable(),
  /** The WU was read from a YAML file (`wu import`, `import lumenflow`): `yaml_status` is the status that file says. */
  has_yaml: z.boolean(),
  blocked_reason: z.string().nullable(),
  stamped: z.strictObject({ seq: z.number().int().min(1), completed_date: z.string(), stamp_path: z.string() }).nullable(),
  last_activity_at: z.string().nullable(),
  integrity_findings: z.array(z.strictObject({ seq: z.number().int(), stream: z.string(), type: z.string(), code: z.string(), message: z.string() })),
});

const initiativeRow = {
  initiative: z.string(),
  title: z.string(),
  slug: z.string().nullable(),
  lanes: z.array(z.string()),
  wus: z.number().int().min(0),
  by_state: z.partialRecord(orchestrationState, z.number().int().min(1)),
};

export const InitiativeListEnvelope = envelope('initiative_list', {
  count: z.number().int().min(0),
  initiatives: z.array(z.strictObject(initiativeRow)),
});

export const InitiativeShowEnvelope = envelope('initiative_detail', {
  ...initiativeRow,
  launch_attempt: z.number().int().min(0).nullable(),
  members: z.array(WuListRow),
});
