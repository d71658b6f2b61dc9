import { z } from 'zod';
import { eventsOn } from '../catalog.js';
import { codePath, initiativeId, initiativeSlug, laneName, requiredText, text, wuId } from './vocabulary.js';

/**
 * What `baton import lumenflow` brings over besides WU YAML: initiative definitions (from
 * their YAML, or `initiative update` by hand), the lines of LumenFlow's `wu-events.jsonl` as
 * observations carrying their original timestamps, and LumenFlow's lane and capacity settings.
 */

/** LumenFlow's WU event kinds (`wu-events.jsonl` `type`). */
export const LumenflowWuEventKind = {
  claim: 'claim',
  create: 'create',
  checkpoint: 'checkpoint',
  block: 'block',
  unblock: 'unblock',
  release: 'release',
  complete: 'complete',
  delegation: 'delegation',
} as const;
export type LumenflowWuEventKind = (typeof LumenflowWuEventKind)[keyof typeof LumenflowWuEventKind];
export const LUMENFLOW_WU_EVENT_KINDS = Object.values(LumenflowWuEventKind);

const isoTime = z
  .string()
  .refine(
    (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(s) && !Number.isNaN(Date.parse(s)),
    'must be an ISO-8601 UTC time (YYYY-MM-DDTHH:mm:ss.sssZ)',
  );
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 hex digest');
const shortText = (max: number) => text(max).nullable().optional();

/** One phase of an initiative, as its YAML states it (LumenFlow keeps an id, a title and a status). */
const InitiativePhase = z.union([z.string().max(200), z.looseObject({})]);

/** The initiative fields read from YAML or set by `initiative update`, each optional: events carry what they set. */
export const InitiativeFields = z.strictObject({
  title: requiredText(200).optional(),
  slug: initiativeSlug.nullable().optional(),
  status: text(40).optional(),
  phases: z.array(InitiativePhase).max(200).optional(),
  lanes: z.array(laneName).optional(),
  wus: z.array(wuId).optional(),
  priority: text(40).optional(),
  owner: text(200).optional(),
  created: z.string().max(100).optional(),
  target_date: z.string().max(100).optional(),
});
export type InitiativeFields = z.infer<typeof InitiativeFields>;
export const INITIATIVE_FIELD_NAMES = ['title', 'slug', 'status', 'phases', 'lanes', 'wus', 'priority', 'owner', 'created', 'target_date'] as const;
export type InitiativeFieldName = (typeof INITIATIVE_FIELD_NAMES)[number];

export const InitiativeUpdatedData = z.strictObject({
  initiative: initiativeId,
  changed: InitiativeFields.refine((c) => Object.keys(c).length > 0, 'must change at least one field'),
});
export type InitiativeUpdatedData = z.infer<typeof InitiativeUpdatedData>;

export const ObservationInitiativeYamlData = z.strictObject({
  initiative: initiativeId,
  path: z.string().min(1).max(4096),
  content_hash: sha256,
  fields: InitiativeFields,
  removed_fields: z.array(z.enum(INITIATIVE_FIELD_NAMES)),
});
export type ObservationInitiativeYamlData = z.infer<typeof ObservationInitiativeYamlData>;

/** One line of `wu-events.jsonl`, keyed by its position and text so a re-import skips it. */
export const ObservationLumenflowWuEventData = z.strictObject({
  wu_id: wuId,
  kind: z.enum(LUMENFLOW_WU_EVENT_KINDS, `must be one of ${LUMENFLOW_WU_EVENT_KINDS.join(', ')}`),
  /** The line's own `timestamp`: when LumenFlow recorded it. */
  timestamp: isoTime,
  line: z.number().int().min(1),
  line_key: sha256,
  lane: laneName.nullable().optional(),
  title: shortText(200),
  note: shortText(4000),
  session_id: shortText(200),
  progress: shortText(4000),
  next_steps: shortText(4000),
  reason: shortText(2000),
  parent_wu_id: wuId.nullable().optional(),
  delegation_id: shortText(200),
});
export type ObservationLumenflowWuEventData = z.infer<typeof ObservationLumenflowWuEventData>;

/** The lane lock policies of work-units.md §7.3 (projections/work-units/settings.ts names them for the views). */
const LOCK_POLICIES = ['all', 'active', 'none'] as const;

const RecordedLane = z.strictObject({
  lock_policy: z.enum(LOCK_POLICIES, `must be one of ${LOCK_POLICIES.join(', ')}`).optional(),
  wip_limit: z.number().int().min(1, 'must be at least 1').max(1000).optional(),
  code_paths: z.array(codePath).optional(),
});

/** Settings read from a repository's own configuration (LumenFlow's `workspace.yaml`), recorded so views can be replayed. */
export const SettingsRecordedData = z.strictObject({
  source: z.enum(['lumenflow']),
  path: z.string().min(1).max(4096),
  lanes: z.record(laneName, RecordedLane),
  max_active_workers: z.number().int().min(0).max(1000).nullable(),
  /** Workspace-relative folder of the repository's done stamps (the stamp probe looks there too). */
  stamps_dir: z.string().min(1).max(1000),
});
export type SettingsRecordedData = z.infer<typeof SettingsRecordedData>;

export const LUMENFLOW_EVENTS = [
  ...eventsOn('initiative', [
    { type: 'initiative.updated', schema: InitiativeUpdatedData, description: 'Fields of an initiative changed (baton initiative update).' },
    {
      type: 'observation.initiative_yaml',
      schema: ObservationInitiativeYamlData,
      description: 'A LumenFlow initiative YAML file was read and its read fields changed (baton import lumenflow).',
    },
  ]),
  ...eventsOn('wu', [
    {
      type: 'observation.lumenflow_wu_event',
      schema: ObservationLumenflowWuEventData,
      description: "A line of LumenFlow's wu-events.jsonl, with its original timestamp (baton import lumenflow).",
    },
  ]),
  ...eventsOn('settings', [
    {
      type: 'settings.recorded',
      schema: SettingsRecordedData,
      description: "Lane and capacity settings read from a repository's own configuration (baton import lumenflow).",
    },
  ]),
] as const;
