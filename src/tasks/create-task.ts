import { z } from 'zod';
import { KIND_PATTERN } from '../../events/tasks/ids.js';
import { CREATABLE_STATES, TaskState } from '../../events/tasks/vocabulary.js';
import { checkId } from '../../projections/tasks/refusal.js';
import type { TasksState, TaskRecord } from '../../projections/tasks/state.js';
import { idempotencyKey } from '../../events/coordination/identities.js';
import { invalidField, invalidInput } from '../errors.js';
import { runTasksCommand } from './commit.js';
import { decideCreateTask } from '../../deciders/tasks.js';
import type { TasksEnv } from './env.js';
import { newTaskId } from './ids.js';
import { refusalsAsErrors } from './refusals.js';
import { requireActingSession } from './sessions.js';

/** `task create` (tasks.md §6), by the domain's names (the CLI's `--active-form` is `active_form`). */
export interface CreateTaskInput {
  label?: string | undefined;
  parent?: string | undefined;
  subagent_kind?: string | undefined;
  active_form?: string | undefined;
  state?: string | undefined;
  idempotency_key?: string | undefined;
}

const text = (max: number) => z.string().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

function checked<T>(schema: z.ZodType<T>, value: unknown, field: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidField(parsed.error.issues[0]!.message, field);
  return parsed.data;
}

/** The task created (or the one its idempotency key names), and the fold after the command. */
export async function createTask(env: TasksEnv, input: CreateTaskInput): Promise<{ task: TaskRecord; state: TasksState }> {
  const sessionId = await refusalsAsErrors(() => requireActingSession(env.session));
  if (input.label === undefined) throw invalidField('is required', 'label');
  const label = checked(text(500), input.label, 'label');
  const activeForm = input.active_form === undefined ? undefined : checked(text(500), input.active_form, 'active_form');
  const state = input.state ?? TaskState.queued;
  if (!(CREATABLE_STATES as readonly string[]).includes(state)) {
    throw invalidInput(`A task can only be created queued or running; got '${state}'.`);
  }
  if (input.subagent_kind !== undefined && !KIND_PATTERN.test(input.subagent_kind)) throw invalidField('must match ^[a-z][a-z0-9_]{0,63}$', 'subagent_kind');
  const parent = input.parent === undefined ? undefined : await refusalsAsErrors(() => checkId('task', input.parent!, 'parent'));
  const key = input.idempotency_key === undefined ? undefined : checked(idempotencyKey, input.idempotency_key, 'idempotency_key');

  const handled = await runTasksCommand(env, (folded) =>
    decideCreateTask(
      { taskId: newTaskId(), sessionId, label, state: state as TaskState, activeForm, parent, subagentKind: input.subagent_kind, idempotencyKey: key },
      folded,
    ),
  );
  const createdId = handled.deduplicated ? String(handled.appended[0]?.data['task_id']) : handled.decision!.outcome.id;
  const task = handled.state.tasks.get(createdId);
  if (!task) throw new Error(`task ${createdId} was appended but the fold does not hold it`);
  return { task, state: handled.state };
}
