import type { z } from 'zod';
import { decideTransition } from '../../../deciders/tasks.js';
import { taskEnvelope } from '../../../projections/tasks/views.js';
import type { TasksState } from '../../../projections/tasks/state.js';
import { runTasksCommand } from '../../tasks/commit.js';
import { createTask, type CreateTaskInput } from '../../tasks/create-task.js';
import { viewContext, type TasksEnv } from '../../tasks/env.js';
import { ownTask } from '../../tasks/own-task.js';
import type { OwnershipInput } from '../../tasks/ownership-input.js';
import { refusalsAsErrors } from '../../tasks/refusals.js';
import { parseTransition, type TransitionInput } from '../../tasks/transition-task.js';
import type { AppContext } from '../context.js';
import { checked } from '../envelopes/checked.js';
import { OrchestrationTaskEnvelope } from '../envelopes/tasks.js';
import { tasksEnv } from '../tasks-env.js';

export type TaskEnvelope = z.output<typeof OrchestrationTaskEnvelope>;
export type { CreateTaskInput, OwnershipInput, TransitionInput };

/** `task transition <task> <state>` (tasks.md §5): one event, decided on the state read; the task as it is after. */
export async function transitionTask(app: AppContext, input: { task: string; state: string } & TransitionInput): Promise<TaskEnvelope> {
  const { task, state, ...fields } = input;
  const request = await refusalsAsErrors(() => parseTransition(task, state, fields));
  const env = await tasksEnv(app);
  const handled = await runTasksCommand(env, (folded) => decideTransition(request, folded));
  return taskEnvelopeOf(env, handled.state, request.taskId);
}

/** `task create` (tasks.md §6): the new task (or the one its idempotency key names), owned by the acting session. */
export async function createTaskEnvelope(app: AppContext, input: CreateTaskInput): Promise<TaskEnvelope> {
  const env = await tasksEnv(app);
  const { task, state } = await createTask(env, input);
  return taskEnvelopeOf(env, state, task.id);
}

/** `task own <task>` (tasks.md §7): exactly one of branch, worktree, pr (with pr_state), file; relative paths from `cwd`. */
export async function ownTaskEnvelope(app: AppContext, input: { task: string; cwd?: string | undefined } & OwnershipInput): Promise<TaskEnvelope> {
  const { task, cwd, ...ownership } = input;
  const env = await tasksEnv(app);
  const owned = await ownTask(env, task, ownership, cwd);
  return taskEnvelopeOf(env, owned.state, owned.task.id);
}

/** `orchestration_task` for one task of the fold. */
export async function taskEnvelopeOf(env: TasksEnv, state: TasksState, taskId: string): Promise<TaskEnvelope> {
  return checked(OrchestrationTaskEnvelope, await refusalsAsErrors(() => taskEnvelope(state, viewContext(env), taskId)));
}
