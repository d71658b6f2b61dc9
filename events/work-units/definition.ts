import { z } from 'zod';
import { AuditMark } from '../audit-mark.js';
import { eventsOn } from '../catalog.js';
import { DEFINITION_FIELD_NAMES } from './terms.js';
import {
  branchName,
  CLAIMED_MODES,
  codePath,
  initiativeId,
  initiativeRef,
  initiativeSlug,
  laneName,
  PRIORITIES,
  requiredText,
  text,
  worktreePath,
  WU_TYPES,
  wuId,
  YAML_STATUSES,
} from './vocabulary.js';

/**
 * Initiatives and WU definitions (work-units.md §2, §3.1, §4): `initiative.created`, `wu.defined`,
 * `wu.updated` and `observation.wu_yaml`. A WU's definition is the per-field latest of these.
 */
export const InitiativeCreatedData = z.strictObject({
  initiative: initiativeId,
  title: requiredText(200),
  slug: initiativeSlug.nullable().default(null),
  lanes: z.array(laneName).default([]),
});
export type InitiativeCreatedData = z.infer<typeof InitiativeCreatedData>;

const wuIds = z.array(wuId);
const stringList = z.array(z.string().max(2000, 'must be at most 2,000 characters'));

/** Every definition field (§3.1) by its persisted name, each optional: events carry what they set. */
export const DefinitionFields = z.strictObject({
  initiative: initiativeRef.nullable().optional(),
  title: requiredText(200).optional(),
  description: text(20_000).optional(),
  acceptance: stringList.optional(),
  lane: laneName.optional(),
  type: z.enum(WU_TYPES, `must be one of ${WU_TYPES.join(', ')}`).optional(),
  priority: z.enum(PRIORITIES, `must be one of ${PRIORITIES.join(', ')}`).optional(),
  dependencies: wuIds.optional(),
  blocked_by: wuIds.optional(),
  blocks: wuIds.optional(),
  code_paths: z.array(codePath).optional(),
  phase: z.number().int().min(1).optional(),
  labels: z.array(z.string().max(200)).optional(),
  created: z.string().max(100).optional(),
  claimed_mode: z.enum(CLAIMED_MODES, `must be one of ${CLAIMED_MODES.join(', ')}`).optional(),
  claimed_branch: branchName.optional(),
  claimed_at: z.string().max(100).optional(),
  worktree_path: worktreePath.optional(),
  blocked_reason: text(2000).optional(),
  completed_at: z.string().max(100).optional(),
  status: z.enum(YAML_STATUSES, `must be one of ${YAML_STATUSES.join(', ')}`).optional(),
});
export type DefinitionFields = z.infer<typeof DefinitionFields>;
export type DefinitionField = keyof DefinitionFields;
export { DEFINITION_FIELD_NAMES };
// The zod-free list (terms.ts) names exactly the schema's fields.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameFields: Same<(typeof DEFINITION_FIELD_NAMES)[number], DefinitionField> = true;
void sameFields;

/** What `wu create` sets (the other fields come from YAML only). */
export { CREATE_FIELDS } from './terms.js';

export const WuDefinedData = DefinitionFields.extend({
  wu_id: wuId,
  lane: laneName,
});
export type WuDefinedData = z.infer<typeof WuDefinedData>;

export const WuUpdatedData = z.strictObject({
  wu_id: wuId,
  changed: DefinitionFields.refine((c) => Object.keys(c).length > 0, 'must change at least one field'),
  removed_fields: z.array(z.enum(DEFINITION_FIELD_NAMES)).optional(),
});
export type WuUpdatedData = z.infer<typeof WuUpdatedData>;

export const ObservationWuYamlData = z.strictObject({
  wu_id: wuId,
  path: z.string().min(1).max(4096),
  content_hash: z.string().regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 hex digest'),
  fields: DefinitionFields,
  removed_fields: z.array(z.enum(DEFINITION_FIELD_NAMES)),
  /** Recorded by `baton audit --fix`: the finding it settles, and why. */
  audit: AuditMark.optional(),
});
export type ObservationWuYamlData = z.infer<typeof ObservationWuYamlData>;

export const DEFINITION_EVENTS = [
  ...eventsOn('initiative', [
    { type: 'initiative.created', schema: InitiativeCreatedData, description: 'An initiative was created (baton initiative create).' },
  ]),
  ...eventsOn('wu', [
    { type: 'wu.defined', schema: WuDefinedData, description: 'A work unit was defined (the first baton wu create).' },
    { type: 'wu.updated', schema: WuUpdatedData, description: 'Fields of a work unit definition changed (a later baton wu create).' },
    {
      type: 'observation.wu_yaml',
      schema: ObservationWuYamlData,
      description: 'A LumenFlow WU YAML file was read and its read fields changed (baton wu import, YAML probe).',
    },
  ]),
] as const;
