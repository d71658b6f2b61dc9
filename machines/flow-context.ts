import { z } from 'zod';
import {
  AgentName,
  DEFAULT_FLOW_FIELDS,
  DeepDiveRef,
  ExtraKey,
  FlowFact,
  FlowEventType,
  FlowFields,
  type FlowStartedData,
} from '../events/flow/flow-events.js';
import {
  COMPLETE,
  FlowStatus,
  GATE_STATUSES,
  GateStatus,
  Mode,
  PHASE_AGENT,
  PHASES,
  Phase,
  TEAMMATE_AGENT,
  TEAMMATES,
  Teammate,
  VARIANT_GATES,
  Variant,
  type GateResult,
} from '../events/flow/vocabulary.js';

/**
 * The flow machine's context: everything a flow's views show. It changes only by folding flow facts
 * (`applyFact`), so the machine's actions and the projection agree by construction.
 */
const isoTime = z.iso.datetime();
const agent = AgentName;

export const Gate = z.strictObject({
  status: z.enum(GATE_STATUSES),
  timestamp: isoTime.nullable(),
  agent: agent.nullable(),
  message: z.string().nullable(),
});
export type Gate = z.infer<typeof Gate>;

export const SubPhase = z.strictObject({
  status: z.enum(GATE_STATUSES),
  agent,
  timestamp: isoTime.nullable(),
  result: z.string().nullable(),
});
export type SubPhase = z.infer<typeof SubPhase>;

export const Group = z.strictObject({
  status: z.enum(GATE_STATUSES),
  started_at: isoTime.nullable(),
  completed_at: isoTime.nullable(),
  review: SubPhase,
  verification: SubPhase,
});
export type Group = z.infer<typeof Group>;

export const LastMerge = z.strictObject({
  group: z.literal('review_verification'),
  all_passed: z.boolean(),
  failed_phases: z.array(z.enum(TEAMMATES)),
  summary: z.string(),
  iteration: z.number().int().min(1),
});
export type LastMerge = z.infer<typeof LastMerge>;

export const FlowContext = z.strictObject({
  flow_id: z.string(),
  variant: z.enum([Variant.orchestrate, Variant.team]),
  mode: z.enum([Mode.sequential, Mode.team]),
  team_available: z.boolean().nullable(),
  task: z.string(),
  max_iterations: z.number().int().min(1),
  iteration: z.number().int().min(1),
  started_at: isoTime,
  deep_dive: DeepDiveRef,
  status: z.enum([FlowStatus.active, FlowStatus.complete, FlowStatus.aborted]),
  current_phase: z.enum([...PHASES, COMPLETE]),
  ended_in_phase: z.enum(PHASES).nullable(),
  ended_at: isoTime.nullable(),
  abort_reason: z.string().nullable(),
  gates: z.partialRecord(z.enum(PHASES), Gate),
  group: Group.nullable(),
  last_merge: LastMerge.nullable(),
  /** Agent Flow's v1.5+ keys (task_complexity, intent, …), rendered as recorded. */
  fields: FlowFields,
  /** The state file's keys Baton does not know, kept and rendered in place. */
  extra_keys: z.array(ExtraKey),
  /** The facts the last machine transition produced (what a command appends). */
  outbox: z.array(FlowFact),
});
export type FlowContext = z.infer<typeof FlowContext>;

export const PENDING_GATE: Gate = { status: GateStatus.pending, timestamp: null, agent: null, message: null };

function pendingSub(teammate: Teammate): SubPhase {
  return { status: GateStatus.pending, agent: TEAMMATE_AGENT[teammate], timestamp: null, result: null };
}

export function pendingGroup(): Group {
  return {
    status: GateStatus.pending,
    started_at: null,
    completed_at: null,
    review: pendingSub(Teammate.review),
    verification: pendingSub(Teammate.verification),
  };
}

/** The context of a flow right after `flow.started` at `at` (I7); an adopted run starts when its file says. */
export function startedContext(data: FlowStartedData, at: string): FlowContext {
  const start = startedAt(data, at);
  const gates: FlowContext['gates'] = {};
  for (const phase of VARIANT_GATES[data.variant]) gates[phase] = { ...PENDING_GATE };
  gates[Phase.exploration] = { status: GateStatus.in_progress, timestamp: start, agent: PHASE_AGENT.exploration, message: null };
  return {
    flow_id: data.flow_id,
    variant: data.variant,
    mode: data.mode,
    team_available: data.team_available,
    task: data.task,
    max_iterations: data.max_iterations,
    iteration: data.iteration ?? 1,
    started_at: start,
    deep_dive: data.deep_dive,
    status: FlowStatus.active,
    current_phase: Phase.exploration,
    ended_in_phase: null,
    ended_at: null,
    abort_reason: null,
    gates,
    group: data.variant === Variant.team ? pendingGroup() : null,
    last_merge: null,
    fields: data.fields ?? DEFAULT_FLOW_FIELDS,
    extra_keys: data.extra_keys ?? [],
    outbox: [],
  };
}

/** When an adopted run's start happened: the time its Agent Flow file recorded, else the event's. */
export function startedAt(data: FlowStartedData, at: string): string {
  return data.adopted_from?.started_at ?? at;
}

/**
 * Facts the machine does not decide: they never move the flow (a logged message, the kept keys).
 * Only an active flow takes one, which the machine itself cannot say (it has no event for them).
 */
const OUTSIDE_MACHINE: ReadonlySet<string> = new Set([FlowEventType.message_logged, FlowEventType.extra_keys_set]);
export function isOutsideMachine(fact: FlowFact): boolean {
  return OUTSIDE_MACHINE.has(fact.type);
}

/** The fact types that may carry `occurred_at`. */
const OCCURRED_AT_TYPES: ReadonlySet<string> = new Set([
  FlowEventType.gate_recorded,
  FlowEventType.phase_changed,
  FlowEventType.iteration_started,
  FlowEventType.group_started,
  FlowEventType.teammate_recorded,
  FlowEventType.group_merged,
  FlowEventType.completed,
  FlowEventType.aborted,
]);

/** The original time a fact carries (`occurred_at`: a step of an adopted run), if any. */
export function occurredAtOf(fact: FlowFact): string | undefined {
  return 'occurred_at' in fact.data ? fact.data.occurred_at : undefined;
}

/** The fact as happening at `at`, before it is appended (the types that carry `occurred_at`). */
export function withOccurredAt(fact: FlowFact, at: string): FlowFact {
  if (!OCCURRED_AT_TYPES.has(fact.type)) return fact;
  return { ...fact, data: { ...fact.data, occurred_at: at } } as FlowFact;
}

/** The fact without its original time: what the machine emits for it. */
export function withoutOccurredAt(fact: FlowFact): FlowFact {
  if (!('occurred_at' in fact.data)) return fact;
  const { occurred_at: _occurred, ...data } = fact.data;
  return { ...fact, data } as FlowFact;
}

function setGate(ctx: FlowContext, phase: Phase, gate: Gate): FlowContext['gates'] {
  return { ...ctx.gates, [phase]: gate };
}

/** The verdict of the merge rule (§6.3, parity). */
export function mergeVerdict(group: Group): { all_passed: boolean; failed_phases: Teammate[]; summary: string } {
  const failed = TEAMMATES.filter((t) => group[t].status !== GateStatus.passed);
  return {
    all_passed: failed.length === 0,
    failed_phases: failed,
    summary: failed.length === 0 ? 'All sub-phases passed' : `${failed.length} sub-phase(s) failed: ${failed.join(',')}`,
  };
}

/**
 * Fold one fact onto the context (no legality check: the machine decides that). Pure; returns a
 * new object. `at` is the event's time.
 */
export function applyFact(ctx: FlowContext, fact: FlowFact, at: string): FlowContext {
  switch (fact.type) {
    case FlowEventType.gate_recorded: {
      const d = fact.data;
      return { ...ctx, gates: setGate(ctx, d.phase, { status: d.status, timestamp: at, agent: d.agent, message: d.message ?? null }) };
    }
    case FlowEventType.phase_changed: {
      const d = fact.data;
      return {
        ...ctx,
        current_phase: d.to,
        gates: setGate(ctx, d.to, { status: GateStatus.in_progress, timestamp: at, agent: PHASE_AGENT[d.to], message: null }),
      };
    }
    case FlowEventType.iteration_started:
      return { ...ctx, iteration: fact.data.iteration };
    case FlowEventType.group_started: {
      const group: Group = { ...pendingGroup(), status: GateStatus.in_progress, started_at: at };
      return { ...ctx, group, gates: { ...ctx.gates, review: { ...PENDING_GATE }, verification: { ...PENDING_GATE } } };
    }
    case FlowEventType.teammate_recorded: {
      const d = fact.data;
      const group = ctx.group ?? pendingGroup();
      const sub: SubPhase = { status: d.status, agent: d.agent, timestamp: at, result: d.result ?? group[d.teammate].result };
      // In team mode the plain review/verification gates mirror the sub-phases (M4).
      const gate: Gate = { status: d.status, timestamp: at, agent: d.agent, message: null };
      return { ...ctx, group: { ...group, [d.teammate]: sub }, gates: setGate(ctx, d.teammate, gate) };
    }
    case FlowEventType.group_merged: {
      const d = fact.data;
      const status: GateResult = d.all_passed ? GateStatus.passed : GateStatus.failed;
      const group = ctx.group ?? pendingGroup();
      return {
        ...ctx,
        group: { ...group, status, completed_at: at },
        gates: setGate(ctx, Phase.review_verification, { status, timestamp: at, agent: null, message: null }),
        last_merge: { group: d.group, all_passed: d.all_passed, failed_phases: d.failed_phases, summary: d.summary, iteration: d.iteration },
      };
    }
    case FlowEventType.completed:
      return { ...ctx, status: FlowStatus.complete, current_phase: COMPLETE, ended_in_phase: fact.data.ended_in_phase, ended_at: at };
    case FlowEventType.aborted:
      return {
        ...ctx,
        status: FlowStatus.aborted,
        current_phase: COMPLETE,
        ended_in_phase: fact.data.ended_in_phase,
        ended_at: at,
        abort_reason: fact.data.reason,
      };
    case FlowEventType.mode_changed:
      return { ...ctx, mode: Mode.sequential, group: pendingGroup(), gates: setGate(ctx, Phase.review_verification, { ...PENDING_GATE }) };
    case FlowEventType.fields_set: {
      const { intent, ...rest } = fact.data.fields;
      return { ...ctx, fields: { ...ctx.fields, ...rest, intent: { ...ctx.fields.intent, ...intent } } };
    }
    case FlowEventType.extra_keys_set:
      return { ...ctx, extra_keys: fact.data.extra_keys };
    case FlowEventType.observed:
    case FlowEventType.message_logged:
      return ctx;
  }
}
