import { z } from 'zod';
import { eventsOn } from '../catalog.js';
import {
  COMPLETE,
  GATE_RESULTS,
  GROUPS,
  INTENT_KEYS,
  MAX_AGENT_NAME_LENGTH,
  MAX_MESSAGE_LENGTH,
  MAX_REASON_LENGTH,
  MAX_TASK_LENGTH,
  Mode,
  PHASES,
  TASK_COMPLEXITIES,
  TEAMMATES,
  Variant,
} from './vocabulary.js';

/** The `flow/<flow_id>` events of phase-gates.md §3. */
export const FLOW_ID_PATTERN = /^flow_[A-Za-z0-9_-]+$/;
export const flowId = z.string().regex(FLOW_ID_PATTERN, 'must look like flow_<id>');
const phase = z.enum(PHASES);
/** Any agent name (Agent Flow stores any string); one line, so it cannot break a rendered file. */
export const AgentName = z
  .string()
  .min(1)
  .max(MAX_AGENT_NAME_LENGTH)
  // eslint-disable-next-line no-control-regex -- a control character is what it refuses
  .regex(/^[^\u0000-\u001f\u007f]+$/, 'must be one line without control characters');
const agent = AgentName;
const message = z.string().max(MAX_MESSAGE_LENGTH, `must be at most ${MAX_MESSAGE_LENGTH} characters`);
const iteration = z.number().int().min(1);
const isoTime = z.iso.datetime();

export const DeepDiveRef = z.strictObject({
  available: z.boolean(),
  using: z.boolean(),
  scope: z.string().nullable(),
  generated: isoTime.nullable(),
  /** Whether --use-deep-dive was given (the body's "Requested but not available" needs it). */
  requested: z.boolean(),
});
export type DeepDiveRef = z.infer<typeof DeepDiveRef>;

/**
 * The keys Agent Flow's state files carry since v1.5 besides phases and gates, in its key order.
 * Baton records them (flow update --set-*, adopt, observed edits) and renders them; it never
 * interprets them.
 */
const text = z.string().max(MAX_MESSAGE_LENGTH);
const count = z.number().int().min(0);
export const Intent = z.strictObject({ goal: text, description: text, actions: text, constraints: text, assumptions: text });
export const GraphInfo = z.strictObject({ available: z.boolean(), path: text, generated: text, nodes: count, edges: count, communities: count });
export const PersonalKbInfo = z.strictObject({ available: z.boolean(), path: text, graph_path: text, generated: text, nodes: count, edges: count });
export const CodexInfo = z.strictObject({ available: z.boolean(), binary: text, auth_present: z.boolean() });
export const AgentsviewInfo = z.strictObject({ available: z.boolean(), binary: text, archive_reachable: z.boolean(), reason: text.optional() });
export const FlowFields = z.strictObject({
  codex_divergence_rounds: count,
  task_complexity: z.enum(TASK_COMPLEXITIES),
  report_requested: z.boolean(),
  intent: Intent,
  graph: GraphInfo,
  personal_kb: PersonalKbInfo,
  codex: CodexInfo,
  agentsview: AgentsviewInfo,
});
export type FlowFields = z.infer<typeof FlowFields>;
/** A change of some fields: top-level keys replace, `intent` merges key by key. */
export const FlowFieldsPatch = z
  .strictObject({
    codex_divergence_rounds: count.optional(),
    task_complexity: z.enum(TASK_COMPLEXITIES).optional(),
    report_requested: z.boolean().optional(),
    intent: Intent.partial().optional(),
    graph: GraphInfo.optional(),
    personal_kb: PersonalKbInfo.optional(),
    codex: CodexInfo.optional(),
    agentsview: AgentsviewInfo.optional(),
  })
  .refine((p) => Object.keys(p).length > 0, 'must set at least one field');
export type FlowFieldsPatch = z.infer<typeof FlowFieldsPatch>;
export { INTENT_KEYS };

export const DEFAULT_FLOW_FIELDS: FlowFields = {
  codex_divergence_rounds: 0,
  task_complexity: 'unclassified',
  report_requested: false,
  intent: { goal: '', description: '', actions: '', constraints: '', assumptions: '' },
  graph: { available: false, path: '', generated: '', nodes: 0, edges: 0, communities: 0 },
  personal_kb: { available: false, path: '', graph_path: '', generated: '', nodes: 0, edges: 0 },
  codex: { available: false, binary: '', auth_present: false },
  agentsview: { available: false, binary: '', archive_reachable: false },
};

/**
 * A key of a state file Baton does not know (a newer Agent Flow's `personal_kb.communities`, a
 * plugin's own key): kept as the file had it and rendered back in place, after the key it followed
 * (`after`: null when it came first), inside the object `path` names. Baton never interprets it.
 */
export const ExtraKey = z.strictObject({
  path: z.array(z.string().min(1).max(200)).min(1).max(16),
  after: z.string().nullable(),
  value: z.unknown(),
});
export type ExtraKey = z.infer<typeof ExtraKey>;

/**
 * When a fact happened, when that is before it was appended: the original time of a step of an
 * Agent Flow run that `flow adopt` took over (absent: the event's own time).
 */
const occurredAt = isoTime.optional();

/** Where an adopted flow came from (`baton flow adopt`): the file and the bytes Baton read. */
export const AdoptedFrom = z.strictObject({ file: z.string().min(1), sha256: z.string().regex(/^[0-9a-f]{64}$/), started_at: z.string() });

export const FlowStartedData = z.strictObject({
  flow_id: flowId,
  variant: z.enum([Variant.orchestrate, Variant.team]),
  mode: z.enum([Mode.sequential, Mode.team]),
  team_available: z.boolean().nullable(),
  task: z.string().min(1).max(MAX_TASK_LENGTH),
  max_iterations: z.number().int().min(1),
  deep_dive: DeepDiveRef,
  /** Adopted runs start at the iteration and with the fields their file showed. */
  iteration: iteration.optional(),
  fields: FlowFields.optional(),
  adopted_from: AdoptedFrom.optional(),
  /** The keys of the adopted file Baton does not know, kept in place. */
  extra_keys: z.array(ExtraKey).optional(),
});
export type FlowStartedData = z.infer<typeof FlowStartedData>;

export const GateRecordedData = z.strictObject({
  flow_id: flowId,
  phase,
  status: z.enum(GATE_RESULTS),
  agent,
  message: message.optional(),
  iteration,
  occurred_at: occurredAt,
});
export type GateRecordedData = z.infer<typeof GateRecordedData>;

export const PhaseChangedData = z.strictObject({ flow_id: flowId, from: phase, to: phase, iteration, occurred_at: occurredAt });
export type PhaseChangedData = z.infer<typeof PhaseChangedData>;

export const IterationStartedData = z.strictObject({
  flow_id: flowId,
  iteration: z.number().int().min(2),
  failed_phase: phase,
  occurred_at: occurredAt,
});
export type IterationStartedData = z.infer<typeof IterationStartedData>;

export const GroupStartedData = z.strictObject({ flow_id: flowId, group: z.enum(GROUPS), iteration, occurred_at: occurredAt });
export type GroupStartedData = z.infer<typeof GroupStartedData>;

export const TeammateRecordedData = z.strictObject({
  flow_id: flowId,
  group: z.enum(GROUPS),
  teammate: z.enum(TEAMMATES),
  status: z.enum(GATE_RESULTS),
  agent,
  result: message.optional(),
  occurred_at: occurredAt,
});
export type TeammateRecordedData = z.infer<typeof TeammateRecordedData>;

export const GroupMergedData = z.strictObject({
  flow_id: flowId,
  group: z.enum(GROUPS),
  all_passed: z.boolean(),
  failed_phases: z.array(z.enum(TEAMMATES)),
  summary: z.string(),
  iteration,
  occurred_at: occurredAt,
});
export type GroupMergedData = z.infer<typeof GroupMergedData>;

export const FlowCompletedData = z.strictObject({ flow_id: flowId, agent, message: message.optional(), ended_in_phase: phase, occurred_at: occurredAt });
export type FlowCompletedData = z.infer<typeof FlowCompletedData>;

export const FlowAbortedData = z.strictObject({
  flow_id: flowId,
  reason: z.string().min(1).max(MAX_REASON_LENGTH),
  message: message.optional(),
  ended_in_phase: phase,
  occurred_at: occurredAt,
});
export type FlowAbortedData = z.infer<typeof FlowAbortedData>;

export const ModeChangedData = z.strictObject({
  flow_id: flowId,
  from: z.literal(Mode.team),
  to: z.literal(Mode.sequential),
  message: message.optional(),
});
export type ModeChangedData = z.infer<typeof ModeChangedData>;

export const FieldsSetData = z.strictObject({ flow_id: flowId, fields: FlowFieldsPatch });
export type FieldsSetData = z.infer<typeof FieldsSetData>;

/**
 * An outside edit of a state file that Baton took as a fact (principle 2): the file, the hash of
 * the bytes it read, and the keys that changed. The flow facts the edit amounts to follow it in
 * the same batch.
 */
export const FlowObservedData = z.strictObject({
  flow_id: flowId,
  file: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  keys: z.array(z.string()).min(1),
});
export type FlowObservedData = z.infer<typeof FlowObservedData>;

/**
 * A message logged on the flow (`flow update --message` alone, or beside a change that does not
 * carry it; a line an Agent Flow script appended to the state file's log): never lost, never
 * moving the flow.
 */
export const MessageLoggedData = z.strictObject({
  flow_id: flowId,
  phase,
  iteration,
  agent: agent.optional(),
  message: message.min(1),
});
export type MessageLoggedData = z.infer<typeof MessageLoggedData>;

/** The keys of the state file Baton does not know, as the file now has them (the whole list). */
export const ExtraKeysSetData = z.strictObject({ flow_id: flowId, extra_keys: z.array(ExtraKey) });
export type ExtraKeysSetData = z.infer<typeof ExtraKeysSetData>;

export const FlowEventType = {
  started: 'flow.started',
  gate_recorded: 'flow.gate_recorded',
  phase_changed: 'flow.phase_changed',
  iteration_started: 'flow.iteration_started',
  group_started: 'flow.group_started',
  teammate_recorded: 'flow.teammate_recorded',
  group_merged: 'flow.group_merged',
  completed: 'flow.completed',
  aborted: 'flow.aborted',
  mode_changed: 'flow.mode_changed',
  fields_set: 'flow.fields_set',
  observed: 'flow.observed',
  message_logged: 'flow.message_logged',
  extra_keys_set: 'flow.extra_keys_set',
} as const;
export type FlowEventType = (typeof FlowEventType)[keyof typeof FlowEventType];

/** A flow fact as the machine emits it and the log stores it (type + data), before the envelope. */
export const FlowFact = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal(FlowEventType.gate_recorded), data: GateRecordedData }),
  z.strictObject({ type: z.literal(FlowEventType.phase_changed), data: PhaseChangedData }),
  z.strictObject({ type: z.literal(FlowEventType.iteration_started), data: IterationStartedData }),
  z.strictObject({ type: z.literal(FlowEventType.group_started), data: GroupStartedData }),
  z.strictObject({ type: z.literal(FlowEventType.teammate_recorded), data: TeammateRecordedData }),
  z.strictObject({ type: z.literal(FlowEventType.group_merged), data: GroupMergedData }),
  z.strictObject({ type: z.literal(FlowEventType.completed), data: FlowCompletedData }),
  z.strictObject({ type: z.literal(FlowEventType.aborted), data: FlowAbortedData }),
  z.strictObject({ type: z.literal(FlowEventType.mode_changed), data: ModeChangedData }),
  z.strictObject({ type: z.literal(FlowEventType.fields_set), data: FieldsSetData }),
  z.strictObject({ type: z.literal(FlowEventType.observed), data: FlowObservedData }),
  z.strictObject({ type: z.literal(FlowEventType.message_logged), data: MessageLoggedData }),
  z.strictObject({ type: z.literal(FlowEventType.extra_keys_set), data: ExtraKeysSetData }),
]);
export type FlowFact = z.infer<typeof FlowFact>;

export const FLOW_EVENT_DEFINITIONS = eventsOn('flow', [
  { type: FlowEventType.started, schema: FlowStartedData, description: 'A phase-gate flow was started (flow init).' },
  { type: FlowEventType.gate_recorded, schema: GateRecordedData, description: 'A gate result was recorded on the current phase.' },
  { type: FlowEventType.phase_changed, schema: PhaseChangedData, description: 'The flow moved to another phase (forward, or back by the failure loop).' },
  { type: FlowEventType.iteration_started, schema: IterationStartedData, description: 'Review or verification failed: a new iteration begins.' },
  { type: FlowEventType.group_started, schema: GroupStartedData, description: 'The review_verification group was entered (sub-phases reset).' },
  { type: FlowEventType.teammate_recorded, schema: TeammateRecordedData, description: 'A teammate (review or verification) reported a result.' },
  { type: FlowEventType.group_merged, schema: GroupMergedData, description: 'The group was merged; its verdict is persisted.' },
  { type: FlowEventType.completed, schema: FlowCompletedData, description: 'The flow completed after its last gate passed.' },
  { type: FlowEventType.aborted, schema: FlowAbortedData, description: 'The flow was aborted (by hand or at max iterations).' },
  { type: FlowEventType.mode_changed, schema: ModeChangedData, description: 'A team flow fell back to sequential mode.' },
  { type: FlowEventType.fields_set, schema: FieldsSetData, description: "Agent Flow's v1.5+ fields were set (flow update --set-*)." },
  { type: FlowEventType.observed, schema: FlowObservedData, description: 'An outside edit of a state file was read and taken as a fact.' },
  { type: FlowEventType.message_logged, schema: MessageLoggedData, description: 'A message was logged on the flow (it changes no phase or gate).' },
  {
    type: FlowEventType.extra_keys_set,
    schema: ExtraKeysSetData,
    description: 'The keys of the state file Baton does not know, kept in place (an outside edit added, changed or removed some).',
  },
]);

export { COMPLETE };
