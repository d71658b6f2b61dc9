import { z } from 'zod';
import { DEFAULT_FLOW_FIELDS, FlowFields } from '../../events/flow/flow-events.js';
import { COMPLETE, GATE_STATUSES, MAX_TASK_LENGTH, PHASES } from '../../events/flow/vocabulary.js';
import { readFrontmatterAs } from './observe-edit.js';

/**
 * A state file Agent Flow's own scripts wrote (`orchestration.local.md` or
 * `team-orchestration.local.md`), read for `baton flow adopt`. Only the frontmatter is read; its
 * documented keys are validated, so a malformed file is refused naming the key. Agent Flow writes
 * times without milliseconds and may leave optional blocks out; absent v1.5+ keys take their
 * defaults.
 */
const time = z.union([z.iso.datetime(), z.literal('')]);
const status = z.enum(GATE_STATUSES);
const gate = z.looseObject({ status, timestamp: z.string().optional(), agent: z.string().optional(), message: z.string().optional() });
const sub = z.looseObject({ status, agent: z.string().optional(), timestamp: z.string().optional(), result: z.string().optional() });

export const AgentFlowFile = z.looseObject({
  active: z.boolean(),
  current_phase: z.enum([...PHASES, COMPLETE]),
  iteration: z.number().int().min(1),
  max_iterations: z.number().int().min(1),
  started_at: z.iso.datetime(),
  task: z.string().min(1).max(MAX_TASK_LENGTH),
  mode: z.enum(['team', 'sequential']).optional(),
  team_available: z.boolean().optional(),
  deep_dive: z
    .looseObject({ available: z.boolean(), using: z.boolean(), scope: z.string().nullable().optional(), generated: time.nullable().optional() })
    .optional(),
  parallel_groups: z
    .looseObject({
      review_verification: z.looseObject({ status, started_at: z.string().optional(), completed_at: z.string().optional(), review: sub, verification: sub }),
    })
    .optional(),
  gates: z.looseObject(Object.fromEntries(PHASES.map((p) => [p, gate.optional()])) as Record<(typeof PHASES)[number], z.ZodOptional<typeof gate>>),
  codex_divergence_rounds: FlowFields.shape.codex_divergence_rounds.optional(),
  task_complexity: FlowFields.shape.task_complexity.optional(),
  report_requested: FlowFields.shape.report_requested.optional(),
  intent: FlowFields.shape.intent.partial().optional(),
  graph: FlowFields.shape.graph.partial().optional(),
  personal_kb: FlowFields.shape.personal_kb.partial().optional(),
  codex: FlowFields.shape.codex.partial().optional(),
  agentsview: FlowFields.shape.agentsview.partial().optional(),
});
export type AgentFlowFile = z.infer<typeof AgentFlowFile>;

export type ReadAgentFlowFile = { file: AgentFlowFile } | { key: string; rule: string };

/** Parse and validate; a failure names the first bad key and its rule. */
export function readAgentFlowFile(text: string): ReadAgentFlowFile {
  const read = readFrontmatterAs(text, AgentFlowFile);
  return 'data' in read ? { file: read.data } : read;
}

/** The v1.5+ fields an adopted flow starts with: the file's values over the defaults. */
export function fieldsOf(file: AgentFlowFile): FlowFields {
  const d = DEFAULT_FLOW_FIELDS;
  return {
    codex_divergence_rounds: file.codex_divergence_rounds ?? d.codex_divergence_rounds,
    task_complexity: file.task_complexity ?? d.task_complexity,
    report_requested: file.report_requested ?? d.report_requested,
    intent: { ...d.intent, ...file.intent },
    graph: { ...d.graph, ...file.graph },
    personal_kb: { ...d.personal_kb, ...file.personal_kb },
    codex: { ...d.codex, ...file.codex },
    agentsview: { ...d.agentsview, ...file.agentsview },
  };
}

/** A file worth adopting: an Agent Flow run that is still going. */
export function isActiveAgentFlowRun(text: string): AgentFlowFile | null {
  const read = readAgentFlowFile(text);
  return 'file' in read && read.file.active && read.file.current_phase !== COMPLETE ? read.file : null;
}
