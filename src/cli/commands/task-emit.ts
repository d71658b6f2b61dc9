import { taskEnvelope } from '../../../projections/tasks/views.js';
import type { TasksState } from '../../../projections/tasks/state.js';
import { viewContext, type TasksEnv } from '../../tasks/env.js';
import { refusalsAsErrors } from '../../tasks/refusals.js';
import type { CommandContext } from '../context.js';
import { OrchestrationTaskEnvelope } from '../envelopes-tasks.js';
import { humanTask } from './task-human.js';

/** Print `orchestration_task` for one task of the fold. */
export async function emitTask(ctx: CommandContext, env: TasksEnv, state: TasksState, taskId: string): Promise<void> {
  const envelope = await refusalsAsErrors(() => taskEnvelope(state, viewContext(env), taskId));
  ctx.output.emit(OrchestrationTaskEnvelope, envelope, humanTask);
}
