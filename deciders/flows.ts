import { FlowEventType, type FlowFact, type FlowStartedData } from '../events/flow/flow-events.js';
import { FLOW_REGISTRY_STREAM, FlowRegistryEventType, type FlowRegisteredData } from '../events/flow/flow-registry-events.js';
import { FlowStatus, GateStatus, Mode, Phase, Variant } from '../events/flow/vocabulary.js';
import { mergeVerdict, type FlowContext } from '../machines/flow-context.js';
import { step } from '../machines/flow-snapshot.js';
import type { FlowMergeEnvelope } from '../projections/flow/flow-envelopes.js';
import { latestFlow, type FlowRecord, type FlowState } from '../projections/flow/flow-state.js';
import type { Decision, ProposedEvent } from './decision.js';
import { FlowErrorCode, NO_FLOW_MESSAGE, refuseFlow } from './flow-refusal.js';

/**
 * The flow commands that start, take over or merge a flow (phase-gates.md §4, §6.3), and the
 * outside edit of a state file read as flow steps, as deciders over the flow fold. The stream
 * versions a decision guards (the flow registry's, so two inits race into a conflict) come in the
 * state; ids and times come in the command. `flow update` is deciders/flow-update.ts.
 */
export interface FlowsRead {
  state: FlowState;
  /** Versions of the guard streams, read before the fold. */
  versions: Readonly<Record<string, number>>;
}

/** I5: one active flow at a time, whatever its variant. */
function requireNoActiveFlow(state: FlowState): void {
  for (const record of [state.flows.orchestrate, state.flows.team]) {
    if (record?.context.status === FlowStatus.active) {
      throw refuseFlow(
        FlowErrorCode.FLOW_ACTIVE,
        `A flow is already active (phase: ${record.context.current_phase}). End it with baton flow update --complete or --abort REASON first.`,
      );
    }
  }
}

/** The start and its registration: the registry's expected version makes concurrent starts conflict. */
function started(
  flowId: string,
  variant: Variant,
  data: FlowStartedData,
  versions: FlowsRead['versions'],
): { events: ProposedEvent[]; expected: Decision['expected'] } {
  const stream = `flow/${flowId}`;
  const registered: FlowRegisteredData = { flow_id: flowId, variant };
  return {
    events: [
      { type: FlowEventType.started, stream, data },
      { type: FlowRegistryEventType.registered, stream: FLOW_REGISTRY_STREAM, data: registered },
    ],
    expected: { [stream]: 'no_stream', [FLOW_REGISTRY_STREAM]: versions[FLOW_REGISTRY_STREAM] ?? 0 },
  };
}

export interface InitFlow {
  flowId: string;
  variant: Variant;
  mode: Mode;
  teamAvailable: boolean | null;
  task: string;
  maxIterations: number;
  useDeepDive: boolean;
  /** A state file holds an Agent Flow run Baton has not recorded: how to take it over (null: none does). */
  agentFlowRun: string | null;
  /** A deep dive Agent Flow completed (its file as events, and its scope), taken when the log records none. */
  deepDive: { events: readonly ProposedEvent[]; scope: string } | null;
  /** The command's clock: when a deep dive taken here is generated. */
  now: string;
}

/**
 * `flow init` (§4): no active flow, no unrecorded Agent Flow run; the deep dive is used when
 * complete, Agent Flow's own completed one included (recorded in the same batch).
 */
export function decideFlowInit(command: InitFlow, { state, versions }: FlowsRead): Decision<{ deepDiveMissing: boolean; deepDiveAdopted: boolean }> {
  requireNoActiveFlow(state);
  // An Agent Flow run Baton has not recorded is taken over, never moved away in silence.
  if (command.agentFlowRun !== null) {
    throw refuseFlow(FlowErrorCode.FLOW_ACTIVE, `An Agent Flow run is in progress: ${command.agentFlowRun} (or move the file away to start afresh).`);
  }
  const dd = state.deep_dive;
  const adopted = dd === null ? command.deepDive : null;
  const recorded = dd !== null && dd.phase === 'complete' ? { scope: dd.scope, generated: dd.generated } : null;
  const source = adopted !== null ? { scope: adopted.scope, generated: command.now } : recorded;
  const requested = command.useDeepDive;
  const data: FlowStartedData = {
    flow_id: command.flowId,
    variant: command.variant,
    mode: command.mode,
    team_available: command.teamAvailable,
    task: command.task,
    max_iterations: command.maxIterations,
    deep_dive: {
      available: source !== null,
      using: source !== null && requested,
      scope: source?.scope ?? null,
      generated: source?.generated ?? null,
      requested,
    },
  };
  const start = started(command.flowId, command.variant, data, versions);
  const taken = adopted?.events ?? [];
  return {
    events: [...taken, ...start.events],
    expected: { ...Object.fromEntries(taken.map((e) => [e.stream, 'no_stream' as const])), ...start.expected },
    outcome: { deepDiveMissing: requested && source === null, deepDiveAdopted: adopted !== null },
  };
}

export interface AdoptFlow {
  flowId: string;
  variant: Variant;
  /** The Agent Flow run as the flow's start and the facts that walk the machine to where it stands. */
  plan: { started: FlowStartedData; facts: readonly FlowFact[] };
  /** The deep dive Agent Flow wrote, as events (null: no file). */
  deepDive: readonly ProposedEvent[] | null;
}

/** `flow adopt`: no active flow; the run's deep dive is taken only when Baton records none. */
export function decideFlowAdopt(command: AdoptFlow, { state, versions }: FlowsRead): Decision<{ deepDiveAdopted: boolean }> {
  requireNoActiveFlow(state);
  const deepDive = command.deepDive !== null && state.deep_dive === null ? command.deepDive : [];
  const start = started(command.flowId, command.variant, command.plan.started, versions);
  const stream = `flow/${command.flowId}`;
  return {
    events: [...deepDive, ...start.events, ...command.plan.facts.map((fact) => ({ type: fact.type, stream, data: fact.data }))],
    expected: { ...Object.fromEntries(deepDive.map((e) => [e.stream, 'no_stream' as const])), ...start.expected },
    outcome: { deepDiveAdopted: deepDive.length > 0 },
  };
}

export type MergeVerdict = Omit<FlowMergeEnvelope, 'v' | 'type' | 'generated_at' | 'group'>;

/** The verdict to report when nothing is appended: the recorded one, else the provisional one. */
function standingVerdict(ctx: FlowContext): MergeVerdict {
  const group = ctx.group;
  if (group !== null && (group.status === GateStatus.passed || group.status === GateStatus.failed) && ctx.last_merge !== null) {
    const { all_passed, failed_phases, summary } = ctx.last_merge;
    return { all_passed, failed_phases, summary, recorded: true };
  }
  return {
    ...mergeVerdict(
      group ?? {
        status: 'pending',
        started_at: null,
        completed_at: null,
        review: { status: 'pending', agent: 'Lawliet', timestamp: null, result: null },
        verification: { status: 'pending', agent: 'Alphonse', timestamp: null, result: null },
      },
    ),
    recorded: false,
  };
}

/** `flow merge` (§6.3): a team flow in its running group merges; otherwise the standing verdict, nothing appended. */
export function decideFlowMerge(command: { now: string }, { state }: FlowsRead): Decision<MergeVerdict> {
  const record = latestFlow(state);
  if (record === null) throw refuseFlow(FlowErrorCode.NO_FLOW, NO_FLOW_MESSAGE);
  const flow = record.context;
  if (flow.variant !== Variant.team || flow.mode !== Mode.team) {
    throw refuseFlow(FlowErrorCode.NOT_TEAM_MODE, `Parallel groups exist only in team mode (this flow is ${flow.variant}/${flow.mode}).`);
  }
  if (flow.current_phase === Phase.review_verification && flow.status === 'active') {
    const stepped = step(flow, { type: 'MERGE', at: command.now });
    const merged = stepped.accepted ? stepped.facts.find((f) => f.type === FlowEventType.group_merged) : undefined;
    if (stepped.accepted && merged?.type === FlowEventType.group_merged) {
      const { all_passed, failed_phases, summary } = merged.data;
      return {
        events: stepped.facts.map((fact) => ({ type: fact.type, stream: record.stream, data: fact.data })),
        expected: { [record.stream]: record.version },
        outcome: { all_passed, failed_phases, summary, recorded: true },
      };
    }
  }
  return { events: [], expected: {}, outcome: standingVerdict(flow) };
}

/** An outside edit of the latest flow's state file, as the machine read it (the shell reads the file). */
export type FlowFileEdit = { kind: 'legal'; facts: readonly FlowFact[] } | { kind: 'illegal'; key: string; rule: string };

/**
 * A legal edit becomes its facts on the flow's stream at the version the fold saw (a flow command
 * that lands first makes it a conflict, and the edit is read again); an illegal one appends nothing
 * (the shell keeps the file aside and restores the rendering).
 */
export function decideFlowFileEdit(edit: FlowFileEdit, record: FlowRecord): Decision<null> | null {
  if (edit.kind !== 'legal') return null;
  return {
    events: edit.facts.map((fact) => ({ type: fact.type, stream: record.stream, data: fact.data })),
    expected: { [record.stream]: record.version },
    outcome: null,
  };
}
