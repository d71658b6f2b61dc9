import type { ExtraKey, FlowFact, FlowStartedData } from '../../events/flow/flow-events.js';
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
  type GateResult,
} from '../../events/flow/vocabulary.js';
import { startedContext, type FlowContext } from '../../machines/flow-context.js';
import { fieldsOf, type AgentFlowFile } from './agent-flow-file.js';

/**
 * `baton flow adopt`: an Agent Flow run taken over as the flow's starting state. The flow starts
 * (`flow.started` with `adopted_from`, the file's v1.5+ fields and the keys Baton does not know)
 * and the machine is walked to where the file stands, each step at the time the file recorded for
 * it (`occurred_at`): every earlier phase's gate recorded with the file's status, agent and message,
 * then the move on; the current gate's result (never `passed`: the run has not moved on); inside the
 * team group the teammates' results and the verdict; an ended run completed or aborted. A run past
 * its first iteration whose file still shows the failure that sent it back (Agent Flow never resets
 * a gate) replays that failure in the iteration before, so the failed gate and the loop are kept.
 * Every step is decided by the machine, so a file that shows an impossible run is refused naming
 * the key.
 */
export interface AdoptPlan {
  started: FlowStartedData;
  facts: FlowFact[];
  context: FlowContext;
}

export type AdoptResult = { plan: AdoptPlan } | { key: string; rule: string };

type AdoptMeta = { flow_id: string; file: string; sha256: string; at: string; extra_keys?: readonly ExtraKey[] };
type Refusal = { key: string; rule: string };

function agentName(value: string | undefined, fallback: string): string {
  if (value === undefined || value.trim() === '') return fallback;
  return AGENTS.find((a) => a.toLowerCase() === value.toLowerCase()) ?? value;
}

/** A time of the file as ISO-8601, or null when it has none (or none that parses). */
function isoOf(time: string | null | undefined): string | null {
  if (time === undefined || time === null || time === '') return null;
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

const done = (status: string | undefined): status is GateResult => status === GateStatus.passed || status === GateStatus.skipped;

function startedData(file: AgentFlowFile, variant: Variant, mode: Mode, meta: AdoptMeta, iteration: number): FlowStartedData {
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
    iteration,
    fields: fieldsOf(file),
    adopted_from: { file: meta.file, sha256: meta.sha256, started_at: new Date(file.started_at).toISOString() },
    ...(meta.extra_keys === undefined || meta.extra_keys.length === 0 ? {} : { extra_keys: [...meta.extra_keys] }),
  };
}

/** The walk through the machine: the file, the flow so far, and the time of the last step the file dates. */
interface Walk {
  file: AgentFlowFile;
  flow: FlowDriver;
  time: string;
}

/** The time the file gives a step (its own time when it has one, else the last step's), kept as the walk's. */
function at(walk: Walk, time: string | null | undefined): string {
  walk.time = isoOf(time) ?? walk.time;
  return walk.time;
}

/** A gate recorded as the file shows it (or with `status` where a later failure implies it). */
function recordGate(walk: Walk, phase: Phase, status: GateResult, withMessage: boolean): Refusal | null {
  const gate = walk.file.gates[phase];
  const message = withMessage && gate?.message ? { message: gate.message } : {};
  const refused = walk.flow.send({ type: 'RECORD_GATE', status, agent: agentName(gate?.agent, PHASE_AGENT[phase]), ...message, at: at(walk, gate?.timestamp) });
  return refused ? { key: `gates.${phase}.status`, rule: refused } : null;
}

function advance(walk: Walk, to: Phase, dated: boolean): Refusal | null {
  const group = walk.file.parallel_groups?.review_verification;
  const time = dated ? (to === Phase.review_verification ? (group?.started_at ?? walk.file.gates[to]?.timestamp) : walk.file.gates[to]?.timestamp) : null;
  const refused = walk.flow.send({ type: 'ADVANCE', to, at: at(walk, time) });
  return refused ? { key: `gates.${to}.status`, rule: refused } : null;
}

/** A phase the run is past must show its gate passed or skipped. */
function notPast(walk: Walk, phase: Phase, status: string): Refusal {
  return {
    key: `gates.${phase}.status`,
    rule: `the run is past ${phase} (current_phase: ${walk.file.current_phase}), so its gate must be passed or skipped, not '${status}'`,
  };
}

/** From where the flow stands to `target`: each gate passed or skipped as the file shows it, then the move on. */
function walkTo(walk: Walk, order: readonly Phase[], target: Phase): Refusal | null {
  const from = walk.flow.context.current_phase;
  if (from === COMPLETE) return null;
  for (const phase of order.slice(order.indexOf(from), order.indexOf(target))) {
    const status = walk.file.gates[phase]?.status ?? GateStatus.passed;
    if (!done(status)) return notPast(walk, phase, status);
    const next = order[order.indexOf(phase) + 1]!;
    const refused = recordGate(walk, phase, status, true) ?? advance(walk, next, next === target);
    if (refused) return refused;
  }
  return null;
}

/**
 * The looping phase whose failure sent the run back to implementation, when its file still shows
 * it: a failed review or verification gate after the current phase (sequential), a failed group
 * while the run is back in implementation (team). Null in the first iteration.
 */
function earlierFailure(file: AgentFlowFile, mode: Mode, target: Phase): Phase | null {
  const order = PHASE_ORDER[mode];
  if (file.iteration < 2 || order.indexOf(target) < order.indexOf(Phase.implementation)) return null;
  if (mode === Mode.team) {
    const group = file.parallel_groups?.review_verification;
    const failed = group?.status === GateStatus.failed || TEAMMATES.some((t) => group?.[t].status === GateStatus.failed);
    return target === Phase.implementation && failed ? Phase.review_verification : null;
  }
  const looping = [Phase.review, Phase.verification].filter((p) => order.indexOf(p) > order.indexOf(target));
  return looping.find((p) => file.gates[p]?.status === GateStatus.failed) ?? null;
}

/** The iteration before: every phase up to the failed one passed (the failure implies it), then the failure. */
function replayFailure(walk: Walk, order: readonly Phase[], target: Phase, failed: Phase): Refusal | null {
  for (const phase of order.slice(0, order.indexOf(failed))) {
    const status = walk.file.gates[phase]?.status ?? GateStatus.passed;
    if (order.indexOf(phase) < order.indexOf(target) && !done(status)) return notPast(walk, phase, status);
    const next = order[order.indexOf(phase) + 1]!;
    const refused = recordGate(walk, phase, done(status) ? status : GateStatus.passed, done(status)) ?? advance(walk, next, false);
    if (refused) return refused;
  }
  if (failed !== Phase.review_verification) return recordGate(walk, failed, GateStatus.failed, true);
  const group = walk.file.parallel_groups?.review_verification;
  for (const teammate of TEAMMATES) {
    const sub = group?.[teammate];
    const status = sub?.status === GateStatus.passed ? GateStatus.passed : GateStatus.failed;
    const refused = recordTeammate(walk, teammate, status);
    if (refused) return refused;
  }
  const refused = walk.flow.send({ type: 'MERGE', at: at(walk, group?.completed_at) });
  return refused ? { key: 'parallel_groups.review_verification.status', rule: refused } : null;
}

function recordTeammate(walk: Walk, teammate: (typeof TEAMMATES)[number], status: GateResult): Refusal | null {
  const sub = walk.file.parallel_groups?.review_verification?.[teammate];
  const refused = walk.flow.send({
    type: 'RECORD_TEAMMATE',
    teammate,
    status,
    agent: agentName(sub?.agent, TEAMMATE_AGENT[teammate]),
    ...(sub?.result ? { result: sub.result } : {}),
    at: at(walk, sub?.timestamp),
  });
  return refused ? { key: `parallel_groups.review_verification.${teammate}.status`, rule: refused } : null;
}

/** Inside the team group: the teammates' results, then the verdict. */
function adoptTeamGroup(walk: Walk): Refusal | null {
  const group = walk.file.parallel_groups?.review_verification;
  for (const teammate of TEAMMATES) {
    const sub = group?.[teammate];
    if (sub === undefined || sub.status === GateStatus.pending) continue;
    const refused = recordTeammate(walk, teammate, sub.status);
    if (refused) return refused;
  }
  if (group !== undefined && (group.status === GateStatus.passed || group.status === GateStatus.failed)) {
    const refused = walk.flow.send({ type: 'MERGE', at: at(walk, group.completed_at) });
    if (refused) return { key: 'parallel_groups.review_verification.status', rule: refused };
  }
  return null;
}

/**
 * The current phase's gate: a failure is recorded; `passed` only when the run has ended (a running
 * flow that has not moved on is still in its phase, whatever a stale gate says).
 */
function adoptCurrentGate(walk: Walk, target: Phase, ended: boolean): Refusal | null {
  const status = walk.file.gates[target]?.status ?? GateStatus.in_progress;
  if (status === GateStatus.pending || status === GateStatus.in_progress || walk.flow.context.status !== 'active') return null;
  if (!ended && status !== GateStatus.failed) return null;
  return recordGate(walk, target, status, true);
}

export function planAdoption(file: AgentFlowFile, variant: Variant, meta: AdoptMeta): AdoptResult {
  const mode = variant === Variant.team && file.mode === Mode.team ? Mode.team : Mode.sequential;
  const order = PHASE_ORDER[mode];
  const ended = !file.active || file.current_phase === COMPLETE;
  const target: Phase = file.current_phase === COMPLETE ? lastPhase(mode) : file.current_phase;
  if (!order.includes(target))
    return { key: 'current_phase', rule: `'${file.current_phase}' is not a phase of a ${variant}/${mode} flow (allowed: ${order.join(', ')}, complete)` };

  const failed = ended ? null : earlierFailure(file, mode, target);
  const started = startedData(file, variant, mode, meta, failed === null ? file.iteration : file.iteration - 1);
  const flow = new FlowDriver(startedContext(started, meta.at), meta.at);
  const walk: Walk = { file, flow, time: started.adopted_from!.started_at };
  const refusal =
    (failed === null ? null : replayFailure(walk, order, target, failed)) ??
    walkTo(walk, order, target) ??
    (target === Phase.review_verification ? adoptTeamGroup(walk) : adoptCurrentGate(walk, target, ended));
  if (refusal) return refusal;

  if (ended && flow.context.status === 'active') {
    const refused = flow.end('ended in Agent Flow before adoption');
    if (refused) return { key: 'active', rule: refused };
  }
  return { plan: { started, facts: flow.facts, context: flow.context } };
}
