import type { FlowFact, FlowStartedData } from '../../events/flow/flow-events.js';
import { FlowDriver } from './flow-driver.js';
import {
  AGENTS,
  COMPLETE,
  GateStatus,
  Mode,
  PHASE_AGENT,
  PHASE_ORDER,
  Phase,
  TEAMMATE_AGENT,
  TEAMMATES,
  Variant,
  lastPhase,
} from '../../events/flow/vocabulary.js';
import { startedContext, type FlowContext } from '../../machines/flow-context.js';
import type { FlowMachineEvent } from '../../machines/flow-events.js';
import { fieldsOf, type AgentFlowFile } from './agent-flow-file.js';

/**
 * `baton flow adopt`: an Agent Flow run taken over as the flow's starting state. The flow starts
 * (`flow.started` with `adopted_from`, the file's iteration and v1.5+ fields) and the machine is
 * walked to where the file stands: every earlier phase's gate recorded with the file's status,
 * agent and message, then the move on; the current gate's result; inside the team group the
 * teammates' results and the verdict; an ended run completed or aborted. Every step is decided by
 * the machine, so a file that shows an impossible run is refused naming the key.
 */
export interface AdoptPlan {
  started: FlowStartedData;
  facts: FlowFact[];
  context: FlowContext;
}

export type AdoptResult = { plan: AdoptPlan } | { key: string; rule: string };

function agentName(value: string | undefined, fallback: string): string {
  if (value === undefined || value.trim() === '') return fallback;
  return AGENTS.find((a) => a.toLowerCase() === value.toLowerCase()) ?? value;
}

function isoOf(time: string | null | undefined): string | null {
  if (time === undefined || time === null || time === '') return null;
  return new Date(time).toISOString();
}

type AdoptMeta = { flow_id: string; file: string; sha256: string; at: string };
type Refusal = { key: string; rule: string };
type Send = (event: FlowMachineEvent) => string | null;

function startedData(file: AgentFlowFile, variant: Variant, mode: Mode, meta: AdoptMeta): FlowStartedData {
  const dd = file.deep_dive;
  const available = dd?.available ?? false;
  return {
    flow_id: meta.flow_id,
    variant,
    mode,
    team_available: variant === Variant.team ? (file.team_available ?? mode === Mode.team) : null,
    task: file.task,
    max_iterations: Math.max(file.max_iterations, file.iteration),
    deep_dive: {
      available,
      using: available && (dd?.using ?? false),
      scope: available ? (dd?.scope ?? null) : null,
      generated: available ? isoOf(dd?.generated) : null,
      requested: dd?.using ?? false,
    },
    iteration: file.iteration,
    fields: fieldsOf(file),
    adopted_from: { file: meta.file, sha256: meta.sha256, started_at: new Date(file.started_at).toISOString() },
  };
}

/** Every phase before `target`: its gate recorded with the file's status, agent and message, then the move on. */
function walkEarlierPhases(file: AgentFlowFile, order: readonly Phase[], target: Phase, send: Send, at: string): Refusal | null {
  for (const phase of order.slice(0, order.indexOf(target))) {
    const gate = file.gates[phase];
    const status = gate?.status ?? GateStatus.passed;
    if (status !== GateStatus.passed && status !== GateStatus.skipped) {
      return {
        key: `gates.${phase}.status`,
        rule: `the run is past ${phase} (current_phase: ${file.current_phase}), so its gate must be passed or skipped, not '${status}'`,
      };
    }
    if (phase === Phase.review_verification) break;
    const refused =
      send({ type: 'RECORD_GATE', status, agent: agentName(gate?.agent, PHASE_AGENT[phase]), ...(gate?.message ? { message: gate.message } : {}), at }) ??
      send({ type: 'ADVANCE', to: order[order.indexOf(phase) + 1]!, at });
    if (refused) return { key: `gates.${phase}.status`, rule: refused };
  }
  return null;
}

/** Inside the team group: the teammates' results, then the verdict. */
function adoptTeamGroup(file: AgentFlowFile, send: Send, at: string): Refusal | null {
  const group = file.parallel_groups?.review_verification;
  for (const teammate of TEAMMATES) {
    const sub = group?.[teammate];
    if (sub === undefined || sub.status === GateStatus.pending) continue;
    const refused = send({
      type: 'RECORD_TEAMMATE',
      teammate,
      status: sub.status,
      agent: agentName(sub.agent, TEAMMATE_AGENT[teammate]),
      ...(sub.result ? { result: sub.result } : {}),
      at,
    });
    if (refused) return { key: `parallel_groups.review_verification.${teammate}.status`, rule: refused };
  }
  if (group !== undefined && (group.status === GateStatus.passed || group.status === GateStatus.failed)) {
    const refused = send({ type: 'MERGE', at });
    if (refused) return { key: 'parallel_groups.review_verification.status', rule: refused };
  }
  return null;
}

/** The current phase's gate result, when the file has one and the flow is still active. */
function adoptCurrentGate(file: AgentFlowFile, target: Phase, flow: FlowDriver, at: string): Refusal | null {
  const gate = file.gates[target];
  const status = gate?.status ?? GateStatus.in_progress;
  if (status !== GateStatus.pending && status !== GateStatus.in_progress && flow.context.status === 'active') {
    const refused = flow.send({
      type: 'RECORD_GATE',
      status,
      agent: agentName(gate?.agent, PHASE_AGENT[target]),
      ...(gate?.message ? { message: gate.message } : {}),
      at,
    });
    if (refused) return { key: `gates.${target}.status`, rule: refused };
  }
  return null;
}

export function planAdoption(file: AgentFlowFile, variant: Variant, meta: AdoptMeta): AdoptResult {
  const mode = variant === Variant.team && file.mode === Mode.team ? Mode.team : Mode.sequential;
  const started = startedData(file, variant, mode, meta);
  const at = meta.at;
  const flow = new FlowDriver(startedContext(started, at), at);
  const send: Send = (event) => flow.send(event);
  const order = PHASE_ORDER[mode];
  const ended = !file.active || file.current_phase === COMPLETE;
  const target: Phase = file.current_phase === COMPLETE ? lastPhase(mode) : file.current_phase;
  if (!order.includes(target))
    return { key: 'current_phase', rule: `'${file.current_phase}' is not a phase of a ${variant}/${mode} flow (allowed: ${order.join(', ')}, complete)` };

  const refusal =
    walkEarlierPhases(file, order, target, send, at) ??
    (target === Phase.review_verification ? adoptTeamGroup(file, send, at) : adoptCurrentGate(file, target, flow, at));
  if (refusal) return refusal;

  if (ended && flow.context.status === 'active') {
    const refused = flow.end('ended in Agent Flow before adoption');
    if (refused) return { key: 'active', rule: refused };
  }
  return { plan: { started, facts: flow.facts, context: flow.context } };
}
