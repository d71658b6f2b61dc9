import { z } from 'zod';
import { FlowStatusEnvelope } from '../../../projections/flow/index.js';
import { updateFlow, type FlowUpdateInput } from '../../app/commands/flows.js';
import type { CommandContext } from '../context.js';
import { humanFlowStatus } from './flow-render.js';

/** `flow update`'s flags as commander hands them over. */
export const FlowUpdateFlags = z.object({
  phase: z.string().optional(),
  gateResult: z.string().optional(),
  agent: z.string().optional(),
  message: z.string().optional(),
  parallelGroup: z.string().optional(),
  teammate: z.string().optional(),
  mergeParallel: z.boolean().optional(),
  complete: z.boolean().optional(),
  abort: z.string().optional(),
  fallbackSequential: z.boolean().optional(),
  iteration: z.string().optional(),
  setTaskComplexity: z.string().optional(),
  setReportRequested: z.string().optional(),
  setIntentGoal: z.string().optional(),
  setIntentDescription: z.string().optional(),
  setIntentActions: z.string().optional(),
  setIntentConstraints: z.string().optional(),
  setIntentAssumptions: z.string().optional(),
  setCodexDivergenceRounds: z.string().optional(),
});
export type FlowUpdateFlags = z.infer<typeof FlowUpdateFlags>;

/** The flow's fields the CLI sets with `--set-*` flags (every other field is `--` and its name in kebab case). */
const SET_FLAGS = {
  task_complexity: '--set-task-complexity',
  report_requested: '--set-report-requested',
  intent_goal: '--set-intent-goal',
  intent_description: '--set-intent-description',
  intent_actions: '--set-intent-actions',
  intent_constraints: '--set-intent-constraints',
  intent_assumptions: '--set-intent-assumptions',
  codex_divergence_rounds: '--set-codex-divergence-rounds',
} as const satisfies Partial<Record<keyof FlowUpdateInput, string>>;

function inputOf(flags: FlowUpdateFlags): FlowUpdateInput {
  return {
    phase: flags.phase,
    gate_result: flags.gateResult,
    agent: flags.agent,
    message: flags.message,
    parallel_group: flags.parallelGroup,
    teammate: flags.teammate,
    merge_parallel: flags.mergeParallel,
    complete: flags.complete,
    abort: flags.abort,
    fallback_sequential: flags.fallbackSequential,
    iteration: flags.iteration,
    task_complexity: flags.setTaskComplexity,
    report_requested: flags.setReportRequested,
    intent_goal: flags.setIntentGoal,
    intent_description: flags.setIntentDescription,
    intent_actions: flags.setIntentActions,
    intent_constraints: flags.setIntentConstraints,
    intent_assumptions: flags.setIntentAssumptions,
    codex_divergence_rounds: flags.setCodexDivergenceRounds,
  };
}

/** `baton flow update …` (§5, §6): the flags as the flow's input, src/app/commands/flows.ts, printed. */
export async function flowUpdate(ctx: CommandContext, options: Record<string, string | boolean | undefined>): Promise<void> {
  ctx.output.nameArguments(SET_FLAGS);
  const envelope = await updateFlow(ctx, inputOf(FlowUpdateFlags.parse(options)));
  ctx.output.emit(FlowStatusEnvelope, envelope, humanFlowStatus);
}
