import { and, assign, not, setup } from 'xstate';
import { FlowEventType, type FlowFact } from '../events/flow/flow-events.js';
import {
  Agent,
  COMPLETE,
  GROUP,
  GateStatus,
  Mode,
  Phase,
  TEAMMATE_AGENT,
  Teammate,
  agentMayRecord,
  isNamedAgent,
  lastPhase,
  nextPhase,
  type GateResult,
} from '../events/flow/vocabulary.js';
import { applyFact, mergeVerdict, type FlowContext } from './flow-context.js';
import type { FlowMachineEvent } from './flow-events.js';

/**
 * The phase-gate flow machine (phase-gates.md §2): the single definition of which changes are
 * legal. Its context is changed only by emitting flow facts (`applyFact`), and each transition
 * leaves the facts it produced in `context.outbox`, which is exactly what a command appends.
 * A targetless transition with an empty outbox is an accepted no-op.
 */

/** The phase being left or recorded on; ended flows never reach an action. */
function current(ctx: FlowContext): Phase {
  return ctx.current_phase === COMPLETE ? Phase.exploration : ctx.current_phase;
}

function emit(ctx: FlowContext, at: string, ...facts: FlowFact[]): FlowContext {
  let next = ctx;
  for (const fact of facts) next = applyFact(next, fact, at);
  return { ...next, outbox: [...ctx.outbox, ...facts] };
}

function withOptional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

const LOOPING: readonly Phase[] = [Phase.review, Phase.verification];

export const flowSetup = setup({
  types: {
    context: {} as FlowContext,
    events: {} as FlowMachineEvent,
    input: {} as FlowContext,
  },
  guards: {
    /** G5 / M3: the phase's (or teammate's) own agent, or the Orchestrator. */
    agentAllowed: ({ context, event }) => {
      if (event.type === 'RECORD_GATE') return agentMayRecord(current(context), event.agent);
      if (event.type === 'RECORD_TEAMMATE')
        return !isNamedAgent(event.agent) || event.agent === TEAMMATE_AGENT[event.teammate] || event.agent === Agent.Orchestrator;
      return true;
    },
    statusIs: ({ event }, params: { status: GateResult }) =>
      (event.type === 'RECORD_GATE' || event.type === 'RECORD_TEAMMATE') && event.status === params.status,
    teammateIs: ({ event }, params: { teammate: Teammate }) => event.type === 'RECORD_TEAMMATE' && event.teammate === params.teammate,
    /** P3: the target is this node's phase and it is next(current) in the flow's mode. */
    isNext: ({ context, event }, params: { to: Phase }) =>
      event.type === 'ADVANCE' && event.to === params.to && nextPhase(context.mode, current(context)) === params.to,
    isLastPhase: ({ context }) => current(context) === lastPhase(context.mode),
    iterationsLeft: ({ context }) => context.iteration < context.max_iterations,
    isTeamMode: ({ context }) => context.mode === Mode.team,
    groupPassed: ({ context }) => context.group?.status === GateStatus.passed,
    allSubPhasesPassed: ({ context }) => context.group !== null && mergeVerdict(context.group).all_passed,
  },
  actions: {
    clearOutbox: assign({ outbox: () => [] }),
    recordGate: assign(({ context, event }) => {
      if (event.type !== 'RECORD_GATE') return context;
      return emit(context, event.at, {
        type: FlowEventType.gate_recorded,
        data: {
          flow_id: context.flow_id,
          phase: current(context),
          status: event.status,
          agent: event.agent,
          ...withOptional('message', event.message),
          iteration: context.iteration,
        },
      });
    }),
    changePhase: assign(({ context, event }) => {
      if (event.type !== 'ADVANCE') return context;
      return emit(context, event.at, {
        type: FlowEventType.phase_changed,
        data: { flow_id: context.flow_id, from: current(context), to: event.to, iteration: context.iteration },
      });
    }),
    startGroup: assign(({ context, event }) =>
      emit(context, event.at, { type: FlowEventType.group_started, data: { flow_id: context.flow_id, group: GROUP, iteration: context.iteration } }),
    ),
    /** L1: a new iteration, back to implementation. */
    startIteration: assign(({ context, event }) => {
      const failed = current(context);
      const iteration = context.iteration + 1;
      return emit(
        context,
        event.at,
        { type: FlowEventType.iteration_started, data: { flow_id: context.flow_id, iteration, failed_phase: failed } },
        { type: FlowEventType.phase_changed, data: { flow_id: context.flow_id, from: failed, to: Phase.implementation, iteration } },
      );
    }),
    /** L2: the loop is out of iterations. */
    abortMaxIterations: assign(({ context, event }) =>
      emit(context, event.at, {
        type: FlowEventType.aborted,
        data: {
          flow_id: context.flow_id,
          reason: 'max_iterations',
          message: `Max iterations reached (${context.max_iterations})`,
          ended_in_phase: current(context),
        },
      }),
    ),
    recordTeammate: assign(({ context, event }) => {
      if (event.type !== 'RECORD_TEAMMATE') return context;
      return emit(context, event.at, {
        type: FlowEventType.teammate_recorded,
        data: {
          flow_id: context.flow_id,
          group: GROUP,
          teammate: event.teammate,
          status: event.status,
          agent: event.agent,
          ...withOptional('result', event.result),
        },
      });
    }),
    merge: assign(({ context, event }) => {
      if (context.group === null) return context;
      return emit(context, event.at, {
        type: FlowEventType.group_merged,
        data: { flow_id: context.flow_id, group: GROUP, ...mergeVerdict(context.group), iteration: context.iteration },
      });
    }),
    complete: assign(({ context, event }) => {
      if (event.type !== 'COMPLETE') return context;
      return emit(context, event.at, {
        type: FlowEventType.completed,
        data: { flow_id: context.flow_id, agent: event.agent, ...withOptional('message', event.message), ended_in_phase: current(context) },
      });
    }),
    abort: assign(({ context, event }) => {
      if (event.type !== 'ABORT') return context;
      return emit(context, event.at, {
        type: FlowEventType.aborted,
        data: { flow_id: context.flow_id, reason: event.reason, ...withOptional('message', event.message), ended_in_phase: current(context) },
      });
    }),
    setFields: assign(({ context, event }) => {
      if (event.type !== 'SET_FIELDS') return context;
      return emit(context, event.at, { type: FlowEventType.fields_set, data: { flow_id: context.flow_id, fields: event.fields } });
    }),
    fallback: assign(({ context, event }) => {
      if (event.type !== 'FALLBACK') return context;
      return emit(context, event.at, {
        type: FlowEventType.mode_changed,
        data: { flow_id: context.flow_id, from: Mode.team, to: Mode.sequential, ...withOptional('message', event.message) },
      });
    }),
    /** §6.4: a fallback inside the group moves the flow to review. */
    fallbackToReview: assign(({ context, event }) =>
      emit(context, event.at, {
        type: FlowEventType.phase_changed,
        data: { flow_id: context.flow_id, from: Phase.review_verification, to: Phase.review, iteration: context.iteration },
      }),
    ),
  },
});

/**
 * The state tree is generated per phase, so its pieces are typed by these local shapes and handed
 * to `createMachine` once; xstate checks every guard and action name when it runs them, and the
 * model-based tests walk every transition.
 */
type Guard = string | object;
interface Transition {
  guard?: Guard;
  target?: string;
  reenter?: boolean;
  actions?: readonly string[];
}
interface Node {
  id?: string;
  type?: 'parallel' | 'final';
  initial?: string;
  onDone?: string;
  on?: Record<string, Transition | readonly Transition[]>;
  states?: Record<string, Node>;
}
type MachineConfig = Parameters<typeof flowSetup.createMachine>[0];

const status = (s: GateResult): Guard => ({ type: 'statusIs', params: { status: s } });
const gate = (s: GateResult): Guard => and(['agentAllowed', status(s) as 'statusIs']);
const NOOP = ['clearOutbox'] as const;

/** The failure of a looping gate (review, verification; the group's merge): L1 or L2. */
function failureLoop(guard: Guard, record: 'recordGate' | 'merge'): Transition[] {
  return [
    { guard: and([guard as 'iterationsLeft', 'iterationsLeft']), target: '#implementation_in_progress', actions: ['clearOutbox', record, 'startIteration'] },
    { guard, target: '#aborted', actions: ['clearOutbox', record, 'abortMaxIterations'] },
  ];
}

/**
 * The phases a passed gate may lead to: next(P) in either mode. Only these get an ADVANCE edge (the
 * `isNext` guard still picks the one of the flow's current mode), and only a phase that is last in
 * some mode gets a COMPLETE edge, so the graph has no edge whose guard can never hold and the
 * model-based tests can demand that every edge is exercised.
 */
function advanceTargets(phase: Phase): Phase[] {
  const targets = [Mode.sequential, Mode.team].map((mode) => nextPhase(mode, phase)).filter((to): to is Phase => to !== null && to !== COMPLETE);
  return [...new Set(targets)];
}
const CAN_BE_LAST: readonly Phase[] = [lastPhase(Mode.sequential), lastPhase(Mode.team)];

function passedNode(phase: Phase, extra: Record<string, Transition | Transition[]> = {}, done: GateResult = GateStatus.passed): Node {
  const on: Record<string, Transition | readonly Transition[]> = {
    RECORD_GATE: { guard: gate(done), actions: NOOP },
    ADVANCE: advanceTargets(phase).map((to): Transition => ({
      guard: { type: 'isNext', params: { to } },
      target: to === Phase.review_verification ? '#review_verification' : `#${to}_in_progress`,
      actions: to === Phase.review_verification ? ['clearOutbox', 'changePhase', 'startGroup'] : ['clearOutbox', 'changePhase'],
    })),
    ...extra,
  };
  if (CAN_BE_LAST.includes(phase)) on['COMPLETE'] = { guard: 'isLastPhase', target: '#complete', actions: ['clearOutbox', 'complete'] };
  return { on };
}

function phaseNode(phase: Phase): Node {
  const loops = LOOPING.includes(phase);
  const record = ['clearOutbox', 'recordGate'] as const;
  const inProgress: Transition[] = [
    { guard: gate(GateStatus.in_progress), actions: NOOP },
    { guard: gate(GateStatus.passed), target: 'passed', actions: record },
    { guard: gate(GateStatus.skipped), target: 'skipped', actions: record },
    ...(loops ? failureLoop(gate(GateStatus.failed), 'recordGate') : [{ guard: gate(GateStatus.failed), target: 'failed', actions: record }]),
  ];
  const states: Record<string, Node> = {
    in_progress: { id: `${phase}_in_progress`, on: { RECORD_GATE: inProgress } },
    passed: passedNode(phase),
    // A skipped gate lets the flow move on like a passed one (Agent Flow's task classification).
    skipped: passedNode(phase, {}, GateStatus.skipped),
  };
  if (!loops) {
    // G3: a failed gate takes in_progress, passed, or another failure (a new record).
    states['failed'] = {
      on: {
        RECORD_GATE: [
          { guard: gate(GateStatus.in_progress), target: 'in_progress', actions: record },
          { guard: gate(GateStatus.passed), target: 'passed', actions: record },
          { guard: gate(GateStatus.skipped), target: 'skipped', actions: record },
          { guard: gate(GateStatus.failed), target: 'failed', reenter: true, actions: record },
        ],
      },
    };
  }
  return { initial: 'in_progress', states };
}

function teammateRegion(teammate: Teammate): Node {
  const guard = (s: GateResult): Guard => and([{ type: 'teammateIs', params: { teammate } }, 'agentAllowed', status(s) as 'statusIs']);
  const record = ['clearOutbox', 'recordTeammate'] as const;
  return {
    initial: 'pending',
    states: {
      pending: {
        on: {
          RECORD_TEAMMATE: [
            { guard: guard(GateStatus.in_progress), target: 'in_progress', actions: record },
            { guard: guard(GateStatus.passed), target: 'passed', actions: record },
            { guard: guard(GateStatus.failed), target: 'failed', actions: record },
          ],
        },
      },
      in_progress: {
        on: {
          RECORD_TEAMMATE: [
            { guard: guard(GateStatus.in_progress), actions: NOOP },
            { guard: guard(GateStatus.passed), target: 'passed', actions: record },
            { guard: guard(GateStatus.failed), target: 'failed', actions: record },
          ],
        },
      },
      passed: { type: 'final' },
      failed: { type: 'final' },
    },
  };
}

const groupRunning: Transition = { guard: gate(GateStatus.in_progress), actions: NOOP };

const config: Node & { context: MachineConfig['context'] } = {
  id: 'flow',
  context: ({ input }: { input: FlowContext }) => input,
  initial: 'active',
  states: {
    active: {
      initial: Phase.exploration,
      on: {
        ABORT: { target: '#aborted', actions: ['clearOutbox', 'abort'] },
        SET_FIELDS: { actions: ['clearOutbox', 'setFields'] },
        FALLBACK: { guard: and(['isTeamMode', not('groupPassed')]), actions: ['clearOutbox', 'fallback'] },
      },
      states: {
        exploration: phaseNode(Phase.exploration),
        planning: phaseNode(Phase.planning),
        implementation: phaseNode(Phase.implementation),
        review: phaseNode(Phase.review),
        verification: phaseNode(Phase.verification),
        review_verification: {
          id: 'review_verification',
          initial: 'teammates',
          on: {
            FALLBACK: {
              guard: and(['isTeamMode', not('groupPassed')]),
              target: '#review_in_progress',
              actions: ['clearOutbox', 'fallback', 'fallbackToReview'],
            },
          },
          states: {
            teammates: {
              type: 'parallel',
              onDone: 'settled',
              on: { RECORD_GATE: groupRunning, MERGE: { actions: NOOP } },
              states: { review: teammateRegion(Teammate.review), verification: teammateRegion(Teammate.verification) },
            },
            settled: {
              on: {
                RECORD_GATE: groupRunning,
                MERGE: [
                  { guard: 'allSubPhasesPassed', target: 'passed', actions: ['clearOutbox', 'merge'] },
                  ...failureLoop('iterationsLeft', 'merge').slice(0, 1),
                  { target: '#aborted', actions: ['clearOutbox', 'merge', 'abortMaxIterations'] },
                ],
              },
            },
            passed: passedNode(Phase.review_verification, { MERGE: { actions: NOOP } }),
          },
        },
      },
    },
    complete: { id: 'complete', type: 'final' },
    aborted: { id: 'aborted', type: 'final' },
  },
};

export const flowMachine = flowSetup.createMachine(config as unknown as MachineConfig);

export type FlowMachine = typeof flowMachine;
