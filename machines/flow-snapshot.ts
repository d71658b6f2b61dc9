import { transition, type SnapshotFrom, type StateValue } from 'xstate';
import type { FlowFact } from '../events/flow/flow-events.js';
import { COMPLETE, FlowStatus, GateStatus, Phase } from '../events/flow/vocabulary.js';
import type { FlowContext } from './flow-context.js';
import type { FlowMachineEvent } from './flow-events.js';
import { flowMachine } from './flow.js';

export type FlowSnapshot = SnapshotFrom<typeof flowMachine>;

/**
 * The machine's state value is a function of its context (the context records every gate), so a
 * flow folded from the log is restored into the machine without storing xstate internals. A test
 * checks that every state the graph reaches satisfies `stateValueOf(snapshot.context)`.
 */
export function stateValueOf(ctx: FlowContext): StateValue {
  if (ctx.status === FlowStatus.complete) return 'complete';
  if (ctx.status === FlowStatus.aborted) return 'aborted';
  const phase = ctx.current_phase === COMPLETE ? Phase.exploration : ctx.current_phase;
  if (phase === Phase.review_verification) {
    const group = ctx.group;
    if (group?.status === GateStatus.passed) return { active: { review_verification: 'passed' } };
    const final = (s: GateStatus): boolean => s === GateStatus.passed || s === GateStatus.failed;
    if (group && final(group.review.status) && final(group.verification.status)) return { active: { review_verification: 'settled' } };
    return {
      active: { review_verification: { teammates: { review: group?.review.status ?? 'pending', verification: group?.verification.status ?? 'pending' } } },
    };
  }
  const status = ctx.gates[phase]?.status ?? GateStatus.in_progress;
  return { active: { [phase]: status === GateStatus.pending ? GateStatus.in_progress : status } };
}

export function snapshotOf(ctx: FlowContext): FlowSnapshot {
  return flowMachine.resolveState({ value: stateValueOf(ctx), context: { ...ctx, outbox: [] } });
}

export type StepResult = { accepted: true; context: FlowContext; facts: FlowFact[] } | { accepted: false };

/** Ask the machine: is this event legal now, and which facts does it produce? */
export function step(ctx: FlowContext, event: FlowMachineEvent): StepResult {
  const snapshot = snapshotOf(ctx);
  if (!snapshot.can(event)) return { accepted: false };
  const [next] = transition(flowMachine, snapshot, event);
  return { accepted: true, context: next.context, facts: next.context.outbox };
}
