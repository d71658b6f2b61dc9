import { z } from 'zod';
import { KIND_PATTERN } from '../../events/tasks/ids.js';
import { CREATABLE_STATES, TaskState } from '../../events/tasks/vocabulary.js';
import { checkId } from '../../projections/tasks/refusal.js';
import type { TaskRecord } from '../../projections/tasks/state.js';
import { idempotencyKey } from '../../events/coordination/identities.js';
import { invalidInput } from '../errors.js';
import { runTasksCommand } from './commit.js';
import { decideCreateTask } from '../../deciders/tasks.js';
import type { TasksEnv } from './env.js';
import { newTaskId } from './ids.js';
import { refusalsAsErrors } from './refusals.js';
import { requireActingSession } from './sessions.js';

/** `task create` (tasks.md §6). */
export interface CreateTaskFlags {
  label?: string | undefined;
  parent?: string | undefined;
  subagentKind?: string | undefined;
  activeForm?: string | undefined;
  state?: string | undefined;
  idempotencyKey?: string | undefined;
}

const text = (max: number, flag: string) => z.string().min(1, `${flag}: must not be empty`).max(max, `${flag}: must be at most ${max} characters`);

function checked<T>(schema: z.ZodType<T>, value: unknown, flag: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidInput(parsed.error.issues[0]!.message.replace(/^[^:]*: /, ''), flag);
  return parsed.data;
}

export async function createTask(env: TasksEnv, flags: CreateTaskFlags): Promise<TaskRecord> {
  const sessionId = await refusalsAsErrors(() => requireActingSession(env.session));
  if (flags.label === undefined) throw invalidInput('is required', '--label');
  const label = checked(text(500, '--label'), flags.label, '--label');
  const activeForm = flags.activeForm === undefined ? undefined : checked(text(500, '--active-form'), flags.activeForm, '--active-form');
  const state = flags.state ?? TaskState.queued;
  if (!(CREATABLE_STATES as readonly string[]).includes(state)) {
    throw invalidInput(`A task can only be created queued or running; got '${state}'.`);
  }
  if (flags.subagentKind !== undefined && !KIND_PATTERN.test(flags.subagentKind)) throw invalidInput('must match ^[a-z][a-z0-9_]{0,63}$', '--subagent-kind');
  const parent = flags.parent === undefined ? undefined : await refusalsAsErrors(() => checkId('task', flags.parent!, '--parent'));
  const key = flags.idempotencyKey === undefined ? undefined : checked(idempotencyKey, flags.idempotencyKey, '--idempotency-key');

  const handled = await runTasksCommand(env, (folded) =>
    decideCreateTask(
      { taskId: newTaskId(), sessionId, label, state: state as TaskState, activeForm, parent, subagentKind: flags.subagentKind, idempotencyKey: key },
      folded,
    ),
  );
  const createdId = handled.deduplicated ? String(handled.appended[0]?.data['task_id']) : handled.decision!.outcome.id;
  const task = handled.state.tasks.get(createdId);
  if (!task) throw new Error(`task ${createdId} was appended but the fold does not hold it`);
  return task;
}
