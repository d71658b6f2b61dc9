import { z } from 'zod';
import { AgentName, FlowFields } from '../../events/flow/flow-events.js';
import { COMPLETE, GATE_STATUSES, PHASES, TEAMMATES } from '../../events/flow/vocabulary.js';
import { LastMerge } from '../../machines/flow-context.js';

/** The JSON envelopes of `baton flow …` and `baton deep-dive …` (§9), validated before printing. */
const generatedAt = z.iso.datetime();
const time = z.iso.datetime().nullable();

const GateView = z.strictObject({ status: z.enum(GATE_STATUSES), timestamp: time, agent: AgentName.nullable(), message: z.string().nullable() });
const SubView = z.strictObject({ status: z.enum(GATE_STATUSES), agent: AgentName, timestamp: time, result: z.string().nullable() });

export const FlowView = z.strictObject({
  flow_id: z.string(),
  variant: z.enum(['orchestrate', 'team']),
  status: z.enum(['active', 'complete', 'aborted']),
  active: z.boolean(),
  current_phase: z.enum([...PHASES, COMPLETE]),
  ended_in_phase: z.enum(PHASES).nullable(),
  iteration: z.number().int().min(1),
  max_iterations: z.number().int().min(1),
  next_phase: z.enum([...PHASES, COMPLETE]).nullable(),
  started_at: z.iso.datetime(),
  ended_at: time,
  abort_reason: z.string().nullable(),
  task: z.string(),
  mode: z.enum(['sequential', 'team']),
  team_available: z.boolean().nullable(),
  deep_dive: z.strictObject({ available: z.boolean(), using: z.boolean(), scope: z.string().nullable(), generated: time }),
  gates: z.partialRecord(z.enum(PHASES), GateView),
  parallel_groups: z
    .strictObject({
      review_verification: z.strictObject({ status: z.enum(GATE_STATUSES), started_at: time, completed_at: time, review: SubView, verification: SubView }),
    })
    .nullable(),
  last_merge: LastMerge.nullable(),
  /** Agent Flow's v1.5+ keys as recorded (defaults until set). */
  fields: FlowFields,
});
export type FlowView = z.infer<typeof FlowView>;

export const FlowStatusEnvelope = z.strictObject({
  v: z.literal(1),
  type: z.literal('flow_status'),
  generated_at: generatedAt,
  state_file: z.string().nullable(),
  warnings: z.array(z.string()),
  flow: FlowView.nullable(),
  /** Flow events the fold could not apply (refused by the catalog or the flow machine), by seq. */
  integrity_findings: z.array(z.strictObject({ seq: z.number().int(), type: z.string(), stream: z.string(), reason: z.string() })),
});
export type FlowStatusEnvelope = z.infer<typeof FlowStatusEnvelope>;

export const FlowMergeEnvelope = z.strictObject({
  v: z.literal(1),
  type: z.literal('flow_merge'),
  generated_at: generatedAt,
  group: z.literal('review_verification'),
  all_passed: z.boolean(),
  failed_phases: z.array(z.enum(TEAMMATES)),
  summary: z.string(),
  recorded: z.boolean(),
});
export type FlowMergeEnvelope = z.infer<typeof FlowMergeEnvelope>;

export const DeepDiveStatusEnvelope = z.strictObject({
  v: z.literal(1),
  type: z.literal('deep_dive_status'),
  generated_at: generatedAt,
  state_file: z.string(),
  backup_path: z.string().nullable(),
  deep_dive: z.strictObject({
    deep_dive_id: z.string(),
    generated: z.iso.datetime(),
    scope: z.enum(['full', 'focused']),
    focus_path: z.string().nullable(),
    agent_count: z.number().int().min(1),
    phase: z.enum(['initializing', 'compilation', 'complete']),
    phases: z.strictObject({
      parallel_exploration: z.strictObject({ status: z.string(), agents_spawned: z.number().int(), agents_completed: z.number().int() }),
      synthesis: z.strictObject({ status: z.string() }),
      compilation: z.strictObject({ status: z.string() }),
    }),
    sections_set: z.array(z.string()),
  }),
});
export type DeepDiveStatusEnvelope = z.infer<typeof DeepDiveStatusEnvelope>;
