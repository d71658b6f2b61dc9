import type { TaskEnvelope } from '../../app/commands/tasks.js';
import type { CommandContext } from '../context.js';
import { OrchestrationTaskEnvelope } from '../../app/envelopes/tasks.js';
import { humanTask } from './task-human.js';

/** Print `orchestration_task`. */
export function printTask(ctx: CommandContext, envelope: TaskEnvelope): void {
  ctx.output.emit(OrchestrationTaskEnvelope, envelope, humanTask);
}
