import { KIND_PATTERN } from '../../events/tasks/ids.js';
import type { SubagentStartedData } from '../../events/tasks/subagent-events.js';
import { idempotencyKey } from '../../events/coordination/identities.js';
import { checkId, subagentNotFound, taskNotFound, TaskErrorCode, ViewRefusal } from '../../projections/tasks/refusal.js';
import { streamVersionIn, type SubagentRecord } from '../../projections/tasks/state.js';
import { invalidInput } from '../errors.js';
import { decideAndAppend } from './commit.js';
import type { TasksEnv } from './env.js';
import { newSubagentId } from './ids.js';
import { refusalsAsErrors } from './refusals.js';
import { requireActingSession, requireOpenSession } from './sessions.js';

/** `subagent start | finish` (tasks.md §8). */
export interface SubagentStartFlags {
  kind?: string | undefined;
  rootTask?: string | undefined;
  idempotencyKey?: string | undefined;
}

export async function startSubagent(env: TasksEnv, flags: SubagentStartFlags): Promise<SubagentRecord> {
  const sessionId = await refusalsAsErrors(() => requireActingSession(env.session));
  if (flags.kind === undefined) throw invalidInput('is required', '--kind');
  if (!KIND_PATTERN.test(flags.kind)) throw invalidInput('must match ^[a-z][a-z0-9_]{0,63}$', '--kind');
  if (flags.rootTask === undefined) throw invalidInput('is required', '--root-task');
  const rootTask = await refusalsAsErrors(() => checkId('task', flags.rootTask!, '--root-task'));
  if (flags.idempotencyKey !== undefined && !idempotencyKey.safeParse(flags.idempotencyKey).success) {
    throw invalidInput('must be 1–128 characters without control characters', '--idempotency-key');
  }
  const key = flags.idempotencyKey;
  let id = newSubagentId();
  const committed = await decideAndAppend(env, (state) => {
    requireOpenSession(state, sessionId);
    if (key !== undefined) {
      for (const s of state.subagents.values()) {
        if (s.idempotency_key === key && s.session_id === sessionId) {
          id = s.id;
          return null;
        }
      }
    }
    const root = state.tasks.get(rootTask);
    if (!root) throw taskNotFound(rootTask);
    if (root.session_id !== sessionId) {
      throw new ViewRefusal(TaskErrorCode.INVALID_INPUT, `--root-task: task ${rootTask} belongs to session ${root.session_id}, not ${sessionId}`, { field: '--root-task' });
    }
    const data: SubagentStartedData = { subagent_id: id, session_id: sessionId, kind: flags.kind!, root_task_id: rootTask };
    return { event: { type: 'subagent.started', stream: `subagent/${id}`, data, actor: env.actor, at: env.now }, expectedVersion: 'no_stream', idempotencyKey: key };
  });
  const finalId = committed.deduplicated ? String(committed.appended[0]?.data['subagent_id']) : id;
  return committed.state.subagents.get(finalId)!;
}

/** A2: finishing sets finishedAt once; finishing again appends nothing and succeeds. */
export async function finishSubagent(env: TasksEnv, rawId: string): Promise<SubagentRecord> {
  const id = await refusalsAsErrors(() => checkId('subagent', rawId));
  const committed = await decideAndAppend(env, (state) => {
    const subagent = state.subagents.get(id);
    if (!subagent) throw subagentNotFound(id);
    if (subagent.finished_at !== null) return null;
    const stream = `subagent/${id}`;
    return { event: { type: 'subagent.finished', stream, data: { subagent_id: id }, actor: env.actor, at: env.now }, expectedVersion: streamVersionIn(state, stream) };
  });
  return committed.state.subagents.get(id)!;
}
