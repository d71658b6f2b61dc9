import type { FlowFact } from '../../events/flow/flow-events.js';
import { COMPLETE, FlowStatus, GateStatus, Mode, PHASE_AGENT, PHASE_ORDER, Phase, TEAMMATE_AGENT, Variant, Agent } from '../../events/flow/vocabulary.js';
import type { FlowContext } from '../../machines/flow-context.js';
import type { FlowMachineEvent } from '../../machines/flow-events.js';
import { step } from '../../machines/flow-snapshot.js';
import { ErrorCode } from '../errors.js';
import { FlowErrorCode, refuse } from './flow-errors.js';
import { ENTER_GROUP_FIRST, GROUP_VERDICT_FROM_MERGE, refusalMessage } from './refusal.js';
import type { ParsedUpdate } from './update-flags.js';

/**
 * Stage two of "one call, one decision" (§5.1): the validated flags against the flow, through the
 * machine — (1) the gate result and its consequences, (2) the move from where step 1 left the flow,
 * (3) the iteration assertion. Returns every fact to append as one batch (none for a no-op), or
 * throws the refusal; nothing is decided half-way.
 */
export interface UpdateDecision {
  facts: FlowFact[];
  context: FlowContext;
}

function notTeamMode(ctx: FlowContext): Error {
  return refuse(FlowErrorCode.NOT_TEAM_MODE, `Parallel groups exist only in team mode (this flow is ${ctx.variant}/${ctx.mode}).`);
}

function ended(ctx: FlowContext): Error {
  return refuse(FlowErrorCode.FLOW_ENDED, `The flow has ended (${ctx.status}); nothing can change it. Start a new one with baton flow init.`);
}

function current(ctx: FlowContext): Phase | typeof COMPLETE {
  return ctx.current_phase;
}

export function decideUpdate(start: FlowContext, parsed: ParsedUpdate, at: string): UpdateDecision {
  const form = parsed.form;
  const isCompletion = form.kind === 'complete' || (form.kind === 'phase' && form.phase === COMPLETE && (form.result === undefined || form.result === GateStatus.passed));
  if (start.status !== FlowStatus.active) {
    // E4: completing a completed flow again is a harmless follow-up call; nothing else is.
    if (start.status === FlowStatus.complete && isCompletion && parsed.fields === undefined) return assertIteration({ facts: [], context: start }, parsed);
    throw ended(start);
  }
  if (form.kind === 'phase' && form.phase !== COMPLETE && !PHASE_ORDER[start.mode].some((p) => p === form.phase)) {
    throw refuse(ErrorCode.INVALID_INPUT, `Invalid --phase value: '${form.phase}'. Allowed: ${[...PHASE_ORDER[start.mode], COMPLETE].join(', ')}.`);
  }
  const teamOnly = parsed.group || form.kind === 'fallback';
  if (teamOnly && (start.variant !== Variant.team || start.mode !== Mode.team)) {
    throw form.kind === 'fallback'
      ? refuse(FlowErrorCode.NOT_TEAM_MODE, `Falling back needs a team flow in team mode (this flow is ${start.variant}/${start.mode}).`)
      : notTeamMode(start);
  }

  let ctx = start;
  const facts: FlowFact[] = [];
  const send = (event: FlowMachineEvent): void => {
    const result = step(ctx, event);
    if (!result.accepted) throw refuse(ErrorCode.ILLEGAL_TRANSITION, refusalMessage(ctx, event));
    ctx = { ...result.context, outbox: [] };
    facts.push(...result.facts);
  };
  const phaseNow = (): Phase => {
    const p = current(ctx);
    if (p === COMPLETE) throw ended(ctx);
    return p;
  };
  const opt = (key: 'message' | 'result', value: string | undefined): Record<string, string> => (value === undefined ? {} : { [key]: value });

  if (parsed.fields !== undefined) send({ type: 'SET_FIELDS', fields: parsed.fields, at });
  switch (form.kind) {
    case 'gate':
      send({ type: 'RECORD_GATE', status: form.result, agent: form.agent ?? PHASE_AGENT[phaseNow()], ...opt('message', form.message), at });
      break;
    case 'phase': {
      if (form.result !== undefined) send({ type: 'RECORD_GATE', status: form.result, agent: form.agent ?? PHASE_AGENT[phaseNow()], ...opt('message', form.message), at });
      if (form.phase === COMPLETE) {
        send({ type: 'COMPLETE', agent: form.agent ?? Agent.Orchestrator, ...opt('message', form.message), at });
      } else if (form.phase !== phaseNow()) {
        send({ type: 'ADVANCE', to: form.phase as Phase, at });
      }
      break;
    }
    case 'group_start':
      if (phaseNow() !== Phase.review_verification) throw refuse(ErrorCode.ILLEGAL_TRANSITION, form.result === GateStatus.in_progress ? ENTER_GROUP_FIRST : GROUP_VERDICT_FROM_MERGE);
      send({ type: 'RECORD_GATE', status: form.result, agent: Agent.Orchestrator, ...opt('message', form.message), at });
      break;
    case 'teammate':
      send({ type: 'RECORD_TEAMMATE', teammate: form.teammate, status: form.result, agent: form.agent ?? TEAMMATE_AGENT[form.teammate], ...opt('result', form.message), at });
      break;
    case 'merge':
      send({ type: 'MERGE', at });
      break;
    case 'complete':
      if (form.withGate) send({ type: 'RECORD_GATE', status: GateStatus.passed, agent: form.agent ?? PHASE_AGENT[phaseNow()], ...opt('message', form.message), at });
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
  return assertIteration({ facts, context: ctx }, parsed);
}

/** §5.6: `--iteration N` must name the iteration the rest of the call produces. */
function assertIteration(decision: UpdateDecision, parsed: ParsedUpdate): UpdateDecision {
  if (parsed.iteration !== undefined && parsed.iteration !== decision.context.iteration) {
    throw refuse(ErrorCode.ILLEGAL_TRANSITION, `Iteration is managed by Baton: it is ${decision.context.iteration} (it advances when review or verification fails).`);
  }
  return decision;
}
