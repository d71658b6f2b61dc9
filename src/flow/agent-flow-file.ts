import { z } from 'zod';
import { DEFAULT_FLOW_FIELDS, FlowFields, type ExtraKey } from '../../events/flow/flow-events.js';
import { COMPLETE, GATE_STATUSES, MAX_TASK_LENGTH, PHASES } from '../../events/flow/vocabulary.js';
import { extraKeysOf } from './extra-keys.js';
import { readFrontmatter } from './observe-edit.js';

/**
 * A state file Agent Flow's own scripts wrote (`orchestration.local.md` or
 * `team-orchestration.local.md`), read for `baton flow adopt`. Only the frontmatter is read; its
 * documented keys are validated, so a malformed file is refused naming the key. Agent Flow writes
 * times without milliseconds and may leave optional blocks out; absent v1.5+ keys take their
 * defaults. A key Baton does not know, at the top or inside a known block, is no fault: it is kept
 * (extra-keys.ts).
 */
const time = z.union([z.iso.datetime(), z.literal('')]);
const status = z.enum(GATE_STATUSES);
const gate = z.looseObject({ status, timestamp: z.string().optional(), agent: z.string().optional(), message: z.string().optional() });
const sub = z.looseObject({ status, agent: z.string().optional(), timestamp: z.string().optional(), result: z.string().optional() });
/** A v1.5+ block: the known keys checked when present, any other key let through. */
const block = <S extends z.ZodRawShape>(schema: z.ZodObject<S>) => z.looseObject(schema.shape).partial().optional();

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
  intent: block(FlowFields.shape.intent),
  graph: block(FlowFields.shape.graph),
  personal_kb: block(FlowFields.shape.personal_kb),
  codex: block(FlowFields.shape.codex),
  agentsview: block(FlowFields.shape.agentsview),
});
export type AgentFlowFile = z.infer<typeof AgentFlowFile>;

export type ReadAgentFlowFile = { file: AgentFlowFile; extra_keys: ExtraKey[] } | { key: string; rule: string };

/** Parse and validate; a failure names the first bad key and its rule. The keys Baton does not know come with it. */
export function readAgentFlowFile(text: string): ReadAgentFlowFile {
  const read = readFrontmatter(text);
  if ('error' in read) return { key: '(frontmatter)', rule: read.error };
  const parsed = AgentFlowFile.safeParse(read.front);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { key: issue.path.join('.') || '(frontmatter)', rule: issue.message };
  }
  return { file: parsed.data, extra_keys: extraKeysOf(read.front) };
}

/** The block's known keys (`shape`'s), each with the file's value over the default (its other keys are extra keys). */
function over<T extends object>(defaults: T, given: Partial<T> | undefined, shape: object): T {
  const out = { ...defaults };
  for (const key of Object.keys(shape) as (keyof T)[]) {
    const value = given?.[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** The v1.5+ fields an adopted flow starts with: the file's values over the defaults. */
export function fieldsOf(file: AgentFlowFile): FlowFields {
  const d = DEFAULT_FLOW_FIELDS;
  return {
    codex_divergence_rounds: file.codex_divergence_rounds ?? d.codex_divergence_rounds,
    task_complexity: file.task_complexity ?? d.task_complexity,
    report_requested: file.report_requested ?? d.report_requested,
    intent: over(d.intent, file.intent, FlowFields.shape.intent.shape),
    graph: over(d.graph, file.graph, FlowFields.shape.graph.shape),
    personal_kb: over(d.personal_kb, file.personal_kb, FlowFields.shape.personal_kb.shape),
    codex: over(d.codex, file.codex, FlowFields.shape.codex.shape),
    agentsview: over(d.agentsview, file.agentsview, FlowFields.shape.agentsview.shape),
  };
}

/** A file worth adopting: an Agent Flow run that is still going. */
export function isActiveAgentFlowRun(text: string): AgentFlowFile | null {
  const read = readAgentFlowFile(text);
  return 'file' in read && read.file.active && read.file.current_phase !== COMPLETE ? read.file : null;
}
