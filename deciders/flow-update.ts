import { FlowEventType, type FlowFact, type FlowFieldsPatch } from '../events/flow/flow-events.js';
import {
  COMPLETE,
  FlowStatus,
  GateStatus,
  Mode,
  PHASE_AGENT,
  PHASE_ORDER,
  Phase,
  TEAMMATE_AGENT,
  Variant,
  Agent,
  type GateResult,
  type Teammate,
} from '../events/flow/vocabulary.js';
import { applyFact, type FlowContext } from '../machines/flow-context.js';
import type { FlowMachineEvent } from '../machines/flow-events.js';
import { step } from '../machines/flow-snapshot.js';
import { latestFlow, type FlowState } from '../projections/flow/flow-state.js';
import type { Decision } from './decision.js';
import { ErrorCode } from './error-codes.js';
import { refuseField } from './refusal.js';
import { ENTER_GROUP_FIRST, FlowErrorCode, GROUP_VERDICT_FROM_MERGE, NO_FLOW_MESSAGE, refuseFlow, refusalMessage } from './flow-refusal.js';

/** `flow update`'s one form (§5.1), as the shell validated it from the input (src/flow/update-input.ts). */
export type UpdateForm =
  | { kind: 'gate'; result: GateResult; agent?: string; message?: string }
  | { kind: 'phase'; phase: string; result?: GateResult; agent?: string; message?: string }
  | { kind: 'group_start'; result: GateResult; message?: string }
  | { kind: 'teammate'; teammate: Teammate; result: GateResult; agent?: string; message?: string }
  | { kind: 'merge'; message?: string }
  | { kind: 'message'; agent?: string; message: string }
  | { kind: 'complete'; withGate: boolean; agent?: string; message?: string }
  | { kind: 'abort'; reason: string; message?: string }
  | { kind: 'fallback'; message?: string }
  | { kind: 'assert' };

export interface ParsedUpdate {
  form: UpdateForm;
  /** The iteration assertion (§5.6). */
  iteration?: number;
  /** A parallel group was named (team-only forms). */
  group: boolean;
  /** Agent Flow's fields, recorded before the form's own change. */
  fields?: FlowFieldsPatch;
}

/** `flow update` on the fold: the latest flow's facts, on its stream at the version the fold saw. */
export function decideFlowUpdate(command: { update: ParsedUpdate; now: string }, state: FlowState): Decision<null> {
  const record = latestFlow(state);
  if (record === null) throw refuseFlow(FlowErrorCode.NO_FLOW, NO_FLOW_MESSAGE);
  const decision = decideUpdate(record.context, command.update, command.now);
  return {
    events: decision.facts.map((fact) => ({ type: fact.type, stream: record.stream, data: fact.data })),
    expected: { [record.stream]: record.version },
    outcome: null,
  };
}

/**
 * Stage two of "one call, one decision" (§5.1): the validated input against the flow, through the
 * machine — (1) the gate result and its consequences, (2) the move from where step 1 left the flow,
 * (3) the iteration assertion. Returns every fact to append as one batch (none for a no-op), or
 * throws the refusal; nothing is decided half-way.
 */
export interface UpdateDecision {
  facts: FlowFact[];
  context: FlowContext;
}

function notTeamMode(ctx: FlowContext): Error {
  return refuseFlow(FlowErrorCode.NOT_TEAM_MODE, `Parallel groups exist only in team mode (this flow is ${ctx.variant}/${ctx.mode}).`);
}

function ended(ctx: FlowContext): Error {
  return refuseFlow(FlowErrorCode.FLOW_ENDED, `The flow has ended (${ctx.status}); nothing can change it. Start a new one with baton flow init.`);
}

function current(ctx: FlowContext): Phase | typeof COMPLETE {
  return ctx.current_phase;
}

/**
 * Checks the call against the flow as it stands before any step: returns the no-op decision for a
 * repeated completion, throws the refusal for an invalid call, or returns null to go on.
 */
function precheckUpdate(start: FlowContext, parsed: ParsedUpdate): UpdateDecision | null {
  const form = parsed.form;
  const isCompletion =
    form.kind === 'complete' || (form.kind === 'phase' && form.phase === COMPLETE && (form.result === undefined || form.result === GateStatus.passed));
  if (start.status !== FlowStatus.active) {
    // E4: completing a completed flow again is a harmless follow-up call; nothing else is.
    if (start.status === FlowStatus.complete && isCompletion && parsed.fields === undefined) return assertIteration({ facts: [], context: start }, parsed);
    throw ended(start);
  }
  if (form.kind === 'phase' && form.phase !== COMPLETE && !PHASE_ORDER[start.mode].some((p) => p === form.phase)) {
    const allowed = [...PHASE_ORDER[start.mode], COMPLETE].join(', ');
    throw refuseField(ErrorCode.INVALID_INPUT, 'phase', (name) => `Invalid ${name} value: '${form.phase}'. Allowed: ${allowed}.`);
  }
  const teamOnly = parsed.group || form.kind === 'fallback';
  if (teamOnly && (start.variant !== Variant.team || start.mode !== Mode.team)) {
    throw form.kind === 'fallback'
      ? refuseFlow(FlowErrorCode.NOT_TEAM_MODE, `Falling back needs a team flow in team mode (this flow is ${start.variant}/${start.mode}).`)
      : notTeamMode(start);
  }
  return null;
}

type Send = (event: FlowMachineEvent) => void;

function opt(key: 'message' | 'result', value: string | undefined): Record<string, string> {
  return value === undefined ? {} : { [key]: value };
}

export function decideUpdate(start: FlowContext, parsed: ParsedUpdate, at: string): UpdateDecision {
  const early = precheckUpdate(start, parsed);
  if (early !== null) return early;

  let ctx = start;
  const facts: FlowFact[] = [];
  const send = (event: FlowMachineEvent): void => {
    const result = step(ctx, event);
    if (!result.accepted) throw refuseFlow(ErrorCode.ILLEGAL_TRANSITION, refusalMessage(ctx, event));
    ctx = { ...result.context, outbox: [] };
    facts.push(...result.facts);
  };
  const phaseNow = (): Phase => {
    const p = current(ctx);
    if (p === COMPLETE) throw ended(ctx);
    return p;
  };

  if (parsed.fields !== undefined) send({ type: 'SET_FIELDS', fields: parsed.fields, at });
  const before = { ctx, count: facts.length };
  sendForm(parsed.form, at, send, phaseNow);
  // Every message is kept: one the form's facts do not carry is logged in the phase the call starts
  // from; a call that changes nothing else (T3's group start) stays the no-op it is.
  const logged = messageNotCarried(parsed.form, facts.slice(before.count), before.ctx);
  if (logged !== null && (parsed.form.kind === 'message' || facts.length > 0)) {
    facts.splice(before.count, 0, logged);
    ctx = applyFact(ctx, logged, at);
  }
  return assertIteration({ facts, context: ctx }, parsed);
}

/** The form's message as a `flow.message_logged` fact, when none of its facts carries it. */
function messageNotCarried(form: UpdateForm, facts: readonly FlowFact[], ctx: FlowContext): FlowFact | null {
  const message = 'message' in form ? form.message : undefined;
  if (message === undefined || message === '' || ctx.current_phase === COMPLETE) return null;
  const carried = facts.some((f) => ('message' in f.data && f.data.message === message) || ('result' in f.data && f.data.result === message));
  if (carried) return null;
  const agent = 'agent' in form ? form.agent : undefined;
  return {
    type: FlowEventType.message_logged,
    data: { flow_id: ctx.flow_id, phase: ctx.current_phase, iteration: ctx.iteration, ...(agent === undefined ? {} : { agent }), message },
  };
}

/** Sends the machine events the update form stands for, in order. */
function sendForm(form: UpdateForm, at: string, send: Send, phaseNow: () => Phase): void {
  switch (form.kind) {
    case 'gate':
      send({ type: 'RECORD_GATE', status: form.result, agent: form.agent ?? PHASE_AGENT[phaseNow()], ...opt('message', form.message), at });
      break;
    case 'phase': {
      if (form.result !== undefined)
        send({ type: 'RECORD_GATE', status: form.result, agent: form.agent ?? PHASE_AGENT[phaseNow()], ...opt('message', form.message), at });
      if (form.phase === COMPLETE) {
        send({ type: 'COMPLETE', agent: form.agent ?? Agent.Orchestrator, ...opt('message', form.message), at });
      } else if (form.phase !== phaseNow()) {
        send({ type: 'ADVANCE', to: form.phase as Phase, at });
      }
      break;
    }
    case 'group_start':
      if (phaseNow() !== Phase.review_verification)
        throw refuseFlow(ErrorCode.ILLEGAL_TRANSITION, form.result === GateStatus.in_progress ? ENTER_GROUP_FIRST : GROUP_VERDICT_FROM_MERGE);
      send({ type: 'RECORD_GATE', status: form.result, agent: Agent.Orchestrator, ...opt('message', form.message), at });
      break;
    case 'teammate':
      send({
        type: 'RECORD_TEAMMATE',
        teammate: form.teammate,
        status: form.result,
        agent: form.agent ?? TEAMMATE_AGENT[form.teammate],
        ...opt('result', form.message),
        at,
      });
      break;
    case 'merge':
      send({ type: 'MERGE', at });
      break;
    case 'message':
      break;
    case 'complete':
      if (form.withGate)
        send({ type: 'RECORD_GATE', status: GateStatus.passed, agent: form.agent ?? PHASE_AGENT[phaseNow()], ...opt('message', form.message), at });
      send({ type: 'COMPLETE', agent: form.agent ?? Agent.Orchestrator, ...opt('message', form.message), at });
      break;
    case 'abort':
      send({ type: 'ABORT', reason: form.reason, ...opt('message', form.message), at });
      break;
    case 'fallback':
      send({ type: 'FALLBACK', ...opt('message', form.message), at });
      break;
    case 'assert':
      break;
  }
}

/** §5.6: the asserted `iteration` must name the iteration the rest of the call produces. */
function assertIteration(decision: UpdateDecision, parsed: ParsedUpdate): UpdateDecision {
  if (parsed.iteration !== undefined && parsed.iteration !== decision.context.iteration) {
    throw refuseFlow(
      ErrorCode.ILLEGAL_TRANSITION,
      `Iteration is managed by Baton: it is ${decision.context.iteration} (it advances when review or verification fails).`,
    );
  }
  return decision;
}
