import type { z } from 'zod';
import { decideTransition } from '../../../deciders/tasks.js';
import { taskEnvelope } from '../../../projections/tasks/views.js';
import type { TasksState } from '../../../projections/tasks/state.js';
import { runTasksCommand } from '../../tasks/commit.js';
import { createTask, type CreateTaskFlags } from '../../tasks/create-task.js';
import { loadTasks, viewContext, type TasksEnv } from '../../tasks/env.js';
import { refusalsAsErrors } from '../../tasks/refusals.js';
import { parseTransition, type TransitionFlags } from '../../tasks/transition-task.js';
import type { AppContext } from '../context.js';
import { checked } from '../envelopes/checked.js';
import { OrchestrationTaskEnvelope } from '../envelopes/tasks.js';
import { tasksEnv } from '../tasks-env.js';

export type TaskEnvelope = z.output<typeof OrchestrationTaskEnvelope>;

/** `task transition <task> <state>` (tasks.md §5): one event, decided on the state read; the task as it is after. */
export async function transitionTask(app: AppContext, input: { task: string; state: string } & TransitionFlags): Promise<TaskEnvelope> {
  const { task, state, ...flags } = input;
  const request = await refusalsAsErrors(() => parseTransition(task, state, flags));
  const env = await tasksEnv(app);
  const handled = await runTasksCommand(env, (folded) => decideTransition(request, folded));
  return taskEnvelopeOf(env, handled.state, request.taskId);
}

/** `task create` (tasks.md §6): the new task (or the one its idempotency key names). */
export async function createTaskEnvelope(app: AppContext, input: CreateTaskFlags): Promise<TaskEnvelope> {
  const env = await tasksEnv(app);
  const task = await createTask(env, input);
  const { state } = await loadTasks(env);
  return taskEnvelopeOf(env, state, task.id);
}

/** `orchestration_task` for one task of the fold. */
export async function taskEnvelopeOf(env: TasksEnv, state: TasksState, taskId: string): Promise<TaskEnvelope> {
  return checked(OrchestrationTaskEnvelope, await refusalsAsErrors(() => taskEnvelope(state, viewContext(env), taskId)));
}
