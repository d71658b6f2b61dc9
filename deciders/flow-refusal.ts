import {
  COMPLETE,
  GateStatus,
  PHASE_AGENT,
  Phase,
  TEAMMATE_AGENT,
  agentMayRecord,
  allowedAgents,
  isNamedAgent,
  lastPhase,
  nextPhase,
} from '../events/flow/vocabulary.js';
import type { FlowContext } from '../machines/flow-context.js';
import type { FlowMachineEvent } from '../machines/flow-events.js';
import type { ErrorCode } from './error-codes.js';
import { Refusal } from './refusal.js';

/** The error codes phase-gates.md adds (§11); their exit code (2) is in src/errors.ts. */
export const FlowErrorCode = {
  NO_FLOW: 'NO_FLOW',
  FLOW_ACTIVE: 'FLOW_ACTIVE',
  FLOW_ENDED: 'FLOW_ENDED',
  NOT_TEAM_MODE: 'NOT_TEAM_MODE',
  NO_DEEP_DIVE: 'NO_DEEP_DIVE',
  DEEP_DIVE_EXISTS: 'DEEP_DIVE_EXISTS',
} as const;
export type FlowErrorCode = (typeof FlowErrorCode)[keyof typeof FlowErrorCode];

/** A flow command refused: the code and the spec's words (no input field: the flow's state is at fault). */
export function refuseFlow(code: FlowErrorCode | typeof ErrorCode.ILLEGAL_TRANSITION | typeof ErrorCode.INVALID_INPUT, message: string): Refusal {
  return new Refusal(code, message);
}

export const NO_FLOW_MESSAGE = 'No flow started. Run baton flow init first.';

/**
 * Why the machine refused an event, in the spec's words. The machine alone decides legality; this
 * only names the broken rule (a test checks it has a message for every refusal the graph reaches).
 */
export const ENTER_GROUP_FIRST = 'Enter review_verification first (baton flow update --phase review_verification --gate-result passed).';
export const GROUP_VERDICT_FROM_MERGE = "The group's verdict comes from the merge: run baton flow merge.";

export function refusalMessage(ctx: FlowContext, event: FlowMachineEvent): string {
  const phase = ctx.current_phase === COMPLETE ? null : ctx.current_phase;
  if (phase === null) return `The flow has ended (${ctx.status}); nothing can change it. Start a new one with baton flow init.`;
  const gate = ctx.gates[phase]?.status ?? GateStatus.pending;
  const agentsText = (p: Phase): string => allowedAgents(p).join(', ');
  switch (event.type) {
    case 'RECORD_GATE':
      if (!agentMayRecord(phase, event.agent)) return `Agent '${event.agent}' cannot record the ${phase} gate (allowed: ${agentsText(phase)}).`;
      if (phase === Phase.review_verification) return GROUP_VERDICT_FROM_MERGE;
      if (gate === GateStatus.passed) return `The ${phase} gate has passed; move on with --phase ${nextPhase(ctx.mode, phase)}.`;
      return `Cannot record '${event.status}' on the ${phase} gate (it is '${gate}').`;
    case 'ADVANCE': {
      const next = nextPhase(ctx.mode, phase);
      if (event.to !== next) return `Cannot move from '${phase}' to '${event.to}': the next phase is '${next}'.`;
      return `Cannot leave '${phase}': its gate is '${gate}', not 'passed'.`;
    }
    case 'COMPLETE':
      if (phase !== lastPhase(ctx.mode) && gate === GateStatus.passed) {
        return `Cannot complete from '${phase}': the last phase is '${lastPhase(ctx.mode)}'. Use --abort REASON to end the flow without success.`;
      }
      return `Cannot complete: the ${phase} gate is '${gate}', not 'passed'. Use --abort REASON to end the flow without success.`;
    case 'RECORD_TEAMMATE': {
      if (phase !== Phase.review_verification)
        return `The review_verification group is not running (current phase: ${phase}); teammates report only while it runs.`;
      const own = TEAMMATE_AGENT[event.teammate];
      if (isNamedAgent(event.agent) && event.agent !== own && event.agent !== PHASE_AGENT.review_verification)
        return `Agent '${event.agent}' cannot record the ${event.teammate} teammate (allowed: ${own}, Orchestrator).`;
      const sub = ctx.group?.[event.teammate].status ?? GateStatus.pending;
      if (sub === GateStatus.passed || sub === GateStatus.failed) return `The ${event.teammate} teammate already reported '${sub}' in this iteration.`;
      return `Cannot record '${event.status}' for the ${event.teammate} teammate (it is '${sub}').`;
    }
    case 'MERGE':
      return ENTER_GROUP_FIRST;
    case 'FALLBACK':
      if (ctx.group?.status === GateStatus.passed) return 'The group has already passed; complete the flow instead.';
      return `Parallel groups exist only in team mode (this flow is ${ctx.variant}/${ctx.mode}).`;
    case 'ABORT':
      return `Cannot abort a flow that is ${ctx.status}.`;
    case 'SET_FIELDS':
      return `The flow has ended (${ctx.status}); nothing can change it. Start a new one with baton flow init.`;
  }
}
