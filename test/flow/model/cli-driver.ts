import { COMPLETE, GROUP, Phase, VARIANT_GATES, Variant } from '../../../events/flow/vocabulary.js';
import type { FlowContext } from '../../../machines/flow-context.js';
import type { FlowMachineEvent } from '../../../machines/flow-events.js';
import { ModelStart } from './flow-model.js';

/**
 * How the model's events become `baton` commands, and what the state file must say for a machine
 * context. One machine event is one CLI call; where the CLI has two spellings for an event, the
 * driver uses the one Agent Flow's orchestrator writes in that situation.
 */
export const MODEL_TASK = ['model-based', 'walk'];

export function initArgs(start: ModelStart, maxIterations: number): { args: string[]; env: Record<string, string> } {
  const base = ['flow', 'init', '--max-iterations', String(maxIterations)];
  return start === ModelStart.team
    ? { args: [...base, '--team', ...MODEL_TASK], env: { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' } }
    : { args: [...base, ...MODEL_TASK], env: {} };
}

const withMessage = (flag: string, value: string | undefined): string[] => (value === undefined ? [] : [flag, value]);

export function argsFor(event: FlowMachineEvent, before: FlowContext): string[] {
  switch (event.type) {
    case 'RECORD_GATE':
      // T3: Agent Flow's "start the group" call is how an orchestrator says in_progress there.
      if (before.current_phase === Phase.review_verification && event.status === 'in_progress') {
        return ['flow', 'update', '--parallel-group', GROUP, '--gate-result', 'in_progress'];
      }
      return ['flow', 'update', '--gate-result', event.status, '--agent', event.agent, ...withMessage('--message', event.message)];
    case 'ADVANCE':
      return ['flow', 'update', '--phase', event.to];
    case 'COMPLETE':
      // Both spellings of completion (§5.5 E1, §5.3 P6), one per variant's last phase.
      return before.current_phase === Phase.review_verification
        ? ['flow', 'update', '--phase', COMPLETE, '--agent', event.agent, ...withMessage('--message', event.message)]
        : ['flow', 'update', '--complete', '--agent', event.agent, ...withMessage('--message', event.message)];
    case 'RECORD_TEAMMATE':
      return [
        'flow',
        'update',
        '--parallel-group',
        GROUP,
        '--teammate',
        event.teammate,
        '--gate-result',
        event.status,
        '--agent',
        event.agent,
        ...withMessage('--message', event.result),
      ];
    case 'MERGE':
      return ['flow', 'merge'];
    case 'ABORT':
      return ['flow', 'update', '--abort', event.reason, ...withMessage('--message', event.message)];
    case 'FALLBACK':
      return ['flow', 'update', '--fallback-sequential', ...withMessage('--message', event.message)];
    case 'SET_FIELDS':
      return ['flow', 'update', '--set-task-complexity', event.fields.task_complexity ?? 'complex'];
  }
}

/** What the state file's frontmatter must hold for a machine context (the fields monitoring reads). */
export function expectedFront(ctx: FlowContext): Record<string, unknown> {
  const gates: Record<string, unknown> = {};
  for (const phase of VARIANT_GATES[ctx.variant]) gates[phase] = { status: ctx.gates[phase]?.status ?? 'pending' };
  const ended = ctx.current_phase === COMPLETE;
  const front: Record<string, unknown> = {
    active: !ended,
    current_phase: ctx.current_phase,
    iteration: ctx.iteration,
    max_iterations: ctx.max_iterations,
    gates,
  };
  if (ctx.variant === Variant.team && ctx.group !== null) {
    front['mode'] = ctx.mode;
    front['parallel_groups'] = {
      review_verification: { status: ctx.group.status, review: { status: ctx.group.review.status }, verification: { status: ctx.group.verification.status } },
    };
  }
  if (ended) front['outcome'] = ctx.status;
  if (ctx.abort_reason !== null) front['abort_reason'] = ctx.abort_reason;
  return front;
}

/** `10:00` plus `depth` minutes on the scenario day: step N of every path runs at the same time. */
export function stepTime(depth: number): string {
  return new Date(Date.parse('2024-01-15T10:00:00.000Z') + depth * 60_000).toISOString();
}
