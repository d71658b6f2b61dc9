import { DEEP_DIVE_SECTIONS, FlowStatus, VARIANT_GATES, nextPhase } from '../../events/flow/vocabulary.js';
import type { FlowContext } from '../../machines/flow-context.js';
import { phaseStatuses, type DeepDiveRecord } from './deep-dive-state.js';
import type { DeepDiveStatusEnvelope, FlowStatusEnvelope, FlowView } from './flow-envelopes.js';
import { latestFlow, type FlowState } from './flow-state.js';
import { STATE_FILE } from './render-flow-file.js';
import { DEEP_DIVE_FILE } from './render-deep-dive-file.js';

/** `flow_status.flow` (§9): every unset value null, times ISO with milliseconds. */
export function flowView(ctx: FlowContext): FlowView {
  const gates: FlowView['gates'] = {};
  for (const phase of VARIANT_GATES[ctx.variant]) {
    const g = ctx.gates[phase];
    gates[phase] = g
      ? { status: g.status, timestamp: g.timestamp, agent: g.agent, message: g.message }
      : { status: 'pending', timestamp: null, agent: null, message: null };
  }
  const current = ctx.current_phase;
  return {
    flow_id: ctx.flow_id,
    variant: ctx.variant,
    status: ctx.status,
    active: ctx.status === FlowStatus.active,
    current_phase: current,
    ended_in_phase: ctx.ended_in_phase,
    iteration: ctx.iteration,
    max_iterations: ctx.max_iterations,
    next_phase: ctx.status === FlowStatus.active && current !== 'complete' ? nextPhase(ctx.mode, current) : null,
    started_at: ctx.started_at,
    ended_at: ctx.ended_at,
    abort_reason: ctx.abort_reason,
    task: ctx.task,
    mode: ctx.mode,
    team_available: ctx.team_available,
    deep_dive: { available: ctx.deep_dive.available, using: ctx.deep_dive.using, scope: ctx.deep_dive.scope, generated: ctx.deep_dive.generated },
    gates,
    parallel_groups: ctx.group === null ? null : { review_verification: structuredClone(ctx.group) },
    last_merge: ctx.last_merge,
    fields: structuredClone(ctx.fields),
  };
}

export function flowStatusEnvelope(state: FlowState, now: string, warnings: string[] = []): FlowStatusEnvelope {
  const record = latestFlow(state);
  return {
    v: 1,
    type: 'flow_status',
    generated_at: now,
    state_file: record === null ? null : STATE_FILE[record.context.variant],
    warnings,
    flow: record === null ? null : flowView(record.context),
    integrity_findings: state.findings.map((f) => ({ ...f })),
  };
}

export function deepDiveStatusEnvelope(dd: DeepDiveRecord, now: string, backupPath: string | null): DeepDiveStatusEnvelope {
  const statuses = phaseStatuses(dd.phase);
  return {
    v: 1,
    type: 'deep_dive_status',
    generated_at: now,
    state_file: DEEP_DIVE_FILE,
    backup_path: backupPath,
    deep_dive: {
      deep_dive_id: dd.deep_dive_id,
      generated: dd.generated,
      scope: dd.scope,
      focus_path: dd.focus_path,
      agent_count: dd.agent_count,
      phase: dd.phase,
      phases: {
        parallel_exploration: { status: statuses.parallel_exploration, agents_spawned: dd.agents_spawned, agents_completed: dd.agents_completed },
        synthesis: { status: statuses.synthesis },
        compilation: { status: statuses.compilation },
      },
      sections_set: DEEP_DIVE_SECTIONS.filter((s) => dd.sections[s] !== undefined),
    },
  };
}
