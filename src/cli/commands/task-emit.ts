import type { TasksState } from '../../../projections/tasks/state.js';
import type { TasksEnv } from '../../tasks/env.js';
import { taskEnvelopeOf, type TaskEnvelope } from '../../app/commands/tasks.js';
import type { CommandContext } from '../context.js';
import { OrchestrationTaskEnvelope } from '../../app/envelopes/tasks.js';
import { humanTask } from './task-human.js';

/** Print `orchestration_task` for one task of the fold. */
export async function emitTask(ctx: CommandContext, env: TasksEnv, state: TasksState, taskId: string): Promise<void> {
  printTask(ctx, await taskEnvelopeOf(env, state, taskId));
}

export function printTask(ctx: CommandContext, envelope: TaskEnvelope): void {
  ctx.output.emit(OrchestrationTaskEnvelope, envelope, humanTask);
}
