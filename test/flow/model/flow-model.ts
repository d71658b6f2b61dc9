import { getShortestPaths, toDirectedGraph, type DirectedGraphNode } from '@xstate/graph';
import { createActor, type AnyTransitionDefinition, type InspectionEvent } from 'xstate';
import {
  Agent,
  COMPLETE,
  GATE_RESULTS,
  Mode,
  PHASE_AGENT,
  Phase,
  TEAMMATES,
  TEAMMATE_AGENT,
  Variant,
  nextPhase,
  type Agent as AgentName,
} from '../../../events/flow/vocabulary.js';
import { startedContext, type FlowContext } from '../../../machines/flow-context.js';
import { FlowMachineEvent } from '../../../machines/flow-events.js';
import type { FlowSnapshot } from '../../../machines/flow-snapshot.js';
import { flowMachine } from '../../../machines/flow.js';

/**
 * The `flow` machine as a graph for model-based tests (phase-gates.md §2, last line): which events
 * to try in each state, how states are told apart, the flows the walk starts from, and which
 * machine transitions (edges of the state-node graph) a step takes.
 */

/** The graph walk's clock; the CLI driver re-times every event (times are not part of a state). */
export const GRAPH_AT = '2024-01-15T10:00:00.000Z';
/** Small, so the failure loop reaches max_iterations (L2) within a few steps. */
export const MAX_ITERATIONS = 2;
export const FAILED_MESSAGE = 'NEEDS_CHANGES: "quoted"\nsecond line';

export const ModelStart = {
  orchestrate: 'orchestrate',
  team: 'team',
} as const;
export type ModelStart = (typeof ModelStart)[keyof typeof ModelStart];

/** The context `flow init` produces for each starting configuration (flow_id is a placeholder). */
export function startContext(start: ModelStart): FlowContext {
  const team = start === ModelStart.team;
  return startedContext(
    {
      flow_id: 'flow_model',
      variant: team ? Variant.team : Variant.orchestrate,
      mode: team ? Mode.team : Mode.sequential,
      team_available: team ? true : null,
      task: 'model-based walk',
      max_iterations: MAX_ITERATIONS,
      deep_dive: { available: false, using: false, scope: null, generated: null, requested: false },
    },
    GRAPH_AT,
  );
}

const phaseOf = (ctx: FlowContext): Phase | null => (ctx.current_phase === COMPLETE ? null : ctx.current_phase);

/**
 * The events tried in a state: every gate result by the phase's own agent, the one forward move,
 * completion, abort and fallback; teammate results and merges inside the group. The machine still
 * decides: an event it refuses is a self-loop the plan ignores.
 */
export function eventsFor(snapshot: FlowSnapshot): FlowMachineEvent[] {
  const ctx = snapshot.context;
  const phase = phaseOf(ctx);
  if (phase === null || snapshot.status === 'done') return [];
  const at = GRAPH_AT;
  const events: FlowMachineEvent[] = GATE_RESULTS.map((status) => ({
    type: 'RECORD_GATE' as const,
    status,
    agent: PHASE_AGENT[phase],
    ...(status === 'failed' ? { message: FAILED_MESSAGE } : {}),
    at,
  }));
  const next = nextPhase(ctx.mode, phase);
  if (next !== null && next !== COMPLETE) events.push({ type: 'ADVANCE', to: next, at });
  if (next === COMPLETE) events.push({ type: 'COMPLETE', agent: Agent.Orchestrator, at });
  if (phase === Phase.review_verification) {
    for (const teammate of TEAMMATES) {
      for (const status of GATE_RESULTS) {
        const agent: AgentName = TEAMMATE_AGENT[teammate];
        events.push({ type: 'RECORD_TEAMMATE', teammate, status, agent, ...(status === 'in_progress' ? {} : { result: `${teammate} ${status}` }), at });
      }
    }
    events.push({ type: 'MERGE', at });
  }
  if (ctx.mode === Mode.team) events.push({ type: 'FALLBACK', message: 'TeamCreate failed', at });
  events.push({ type: 'ABORT', reason: 'model abort', at });
  // Agent Flow's --set-* fields: legal in every active state, never moving the flow.
  events.push({ type: 'SET_FIELDS', fields: { task_complexity: 'complex' }, at });
  return events;
}

/**
 * A graph vertex: the state value and exactly the context the guards read — mode (isTeamMode,
 * isNext, isLastPhase), iteration and max_iterations (iterationsLeft), the group's status
 * (groupPassed) and its sub-phases (allSubPhasesPassed). Times and messages are left out, so the
 * graph is finite. Ended flows accept nothing, so each end is one vertex.
 */
export function serializeFlow(snapshot: FlowSnapshot): string {
  const ctx = snapshot.context;
  if (snapshot.status === 'done') return JSON.stringify({ value: snapshot.value });
  const group = ctx.group === null ? null : [ctx.group.status, ctx.group.review.status, ctx.group.verification.status];
  return JSON.stringify({ value: snapshot.value, mode: ctx.mode, iteration: ctx.iteration, max: ctx.max_iterations, group });
}

export function serializeEvent(event: FlowMachineEvent): string {
  const { at: _at, ...rest } = event;
  return JSON.stringify(rest);
}

export interface GraphPath {
  /** The serialized vertex this path reaches. */
  target: string;
  events: FlowMachineEvent[];
}

/** Shortest paths from the start to every reachable vertex (@xstate/graph, Dijkstra). */
export function shortestPaths(start: ModelStart): GraphPath[] {
  const paths = getShortestPaths(flowMachine, {
    input: startContext(start),
    events: eventsFor,
    serializeState: (snapshot) => serializeFlow(snapshot),
    serializeEvent: (event) => serializeEvent(event),
  });
  // Every path starts with the machine's own `xstate.init` step, which no command sends.
  return paths.map((path) => ({
    target: serializeFlow(path.state),
    events: path.steps.map((step) => step.event).filter((event) => FlowMachineEvent.safeParse(event).success),
  }));
}

/** Every transition of the machine, from its state-node graph, named `source#event#index`. */
export function machineTransitions(): Map<AnyTransitionDefinition, string> {
  const out = new Map<AnyTransitionDefinition, string>();
  const walk = (node: DirectedGraphNode): void => {
    const perEvent = new Map<string, number>();
    for (const edge of node.edges) {
      const i = perEvent.get(edge.transition.eventType) ?? 0;
      perEvent.set(edge.transition.eventType, i + 1);
      out.set(edge.transition, `${edge.source.id}#${edge.transition.eventType}#${i}`);
    }
    node.children.forEach(walk);
  };
  walk(toDirectedGraph(flowMachine));
  return out;
}

/**
 * The machine transitions one event takes from `snapshot`, including the eventless ones it
 * triggers (the parallel group's `onDone`), read from xstate's microstep inspection events.
 */
export function transitionsTaken(snapshot: FlowSnapshot, event: FlowMachineEvent): { next: FlowSnapshot; taken: AnyTransitionDefinition[] } {
  const taken: AnyTransitionDefinition[] = [];
  // The input is unused when a snapshot is given (the machine resumes from it), but xstate's types ask for it.
  const actor = createActor(flowMachine, {
    snapshot,
    input: snapshot.context,
    inspect: (inspection: InspectionEvent) => {
      if (inspection.type === '@xstate.microstep') taken.push(...inspection._transitions);
    },
  });
  actor.start();
  taken.length = 0;
  actor.send(event);
  const next = actor.getSnapshot();
  actor.stop();
  return { next, taken };
}

/** The machine's first snapshot for a starting configuration. */
export function initialSnapshot(context: FlowContext): FlowSnapshot {
  const actor = createActor(flowMachine, { input: context });
  const snapshot = actor.getSnapshot();
  return snapshot;
}
