import type { SubagentRecord } from '../../../projections/tasks/state.js';
import { wizardSubagent } from '../../../projections/tasks/wizard-shapes.js';
import { finishSubagent, startSubagent, type SubagentStartFlags } from '../../tasks/subagents.js';
import type { CommandContext } from '../context.js';
import { OrchestrationSubagentEnvelope } from '../../app/envelopes/tasks.js';
import { tasksEnv } from '../../app/tasks-env.js';
import { humanSubagent } from './task-human.js';

/** `baton subagent start | finish` (tasks.md §8). */
function emit(ctx: CommandContext, workspace: string, subagent: SubagentRecord): void {
  ctx.output.emit(
    OrchestrationSubagentEnvelope,
    { v: 1, type: 'orchestration_subagent', generated_at: ctx.now, generatedAt: ctx.now, installDir: workspace, subagent: wizardSubagent(subagent) },
    humanSubagent,
  );
}

export async function subagentStart(ctx: CommandContext, flags: SubagentStartFlags): Promise<void> {
  const env = await tasksEnv(ctx);
  emit(ctx, env.workspace, await startSubagent(env, flags));
}

export async function subagentFinish(ctx: CommandContext, id: string): Promise<void> {
  const env = await tasksEnv(ctx);
  emit(ctx, env.workspace, await finishSubagent(env, id));
}
