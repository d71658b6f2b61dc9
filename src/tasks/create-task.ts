import { z } from 'zod';
import type { TaskCreatedData } from '../../events/tasks/task-events.js';
import { KIND_PATTERN } from '../../events/tasks/ids.js';
import { CREATABLE_STATES, TaskState } from '../../events/tasks/vocabulary.js';
import { checkId, taskNotFound, TaskErrorCode, ViewRefusal } from '../../projections/tasks/refusal.js';
import type { TaskRecord } from '../../projections/tasks/state.js';
import { idempotencyKey } from '../../events/coordination/identities.js';
import { invalidInput } from '../errors.js';
import { decideAndAppend } from './commit.js';
import type { TasksEnv } from './env.js';
import { newTaskId } from './ids.js';
import { refusalsAsErrors } from './refusals.js';
import { requireActingSession, requireOpenSession } from './sessions.js';

/** `task create` (tasks.md §6). */
export interface CreateTaskFlags {
  label?: string | undefined;
  parent?: string | undefined;
  subagentKind?: string | undefined;
  activeForm?: string | undefined;
  state?: string | undefined;
  idempotencyKey?: string | undefined;
}

const text = (max: number, flag: string) =>
  z.string().min(1, `${flag}: must not be empty`).max(max, `${flag}: must be at most ${max} characters`);

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

  let taskId = newTaskId();
  const committed = await decideAndAppend(env, (folded) => {
    requireOpenSession(folded, sessionId);
    if (key !== undefined) {
      // C6: a repeat with the same key returns the task created the first time.
      for (const t of folded.tasks.values()) {
        if (t.idempotency_key === key && t.session_id === sessionId) {
          taskId = t.id;
          return null;
        }
      }
    }
    if (parent !== undefined) {
      const p = folded.tasks.get(parent);
      if (!p) throw taskNotFound(parent);
      if (p.session_id !== sessionId) {
        throw new ViewRefusal(TaskErrorCode.INVALID_INPUT, `--parent: task ${parent} belongs to session ${p.session_id}, not ${sessionId}`, { field: '--parent' });
      }
    }
    if (folded.tasks.has(taskId)) taskId = newTaskId();
    const data: TaskCreatedData = {
      task_id: taskId,
      session_id: sessionId,
      label,
      state: state as TaskState,
      ...(activeForm !== undefined ? { active_form: activeForm } : {}),
      ...(parent !== undefined ? { parent_task_id: parent } : {}),
      ...(flags.subagentKind !== undefined ? { subagent_kind: flags.subagentKind } : {}),
    };
    return {
      event: { type: 'task.created', stream: `task/${taskId}`, data, actor: env.actor, at: env.now },
      expectedVersion: 'no_stream',
      idempotencyKey: key,
    };
  });
  const createdId = committed.deduplicated ? String(committed.appended[0]?.data['task_id']) : taskId;
  const task = committed.state.tasks.get(createdId);
  if (!task) throw new Error(`task ${createdId} was appended but the fold does not hold it`);
  return task;
}
