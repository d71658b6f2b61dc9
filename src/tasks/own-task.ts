import { ownershipIdentity, sameOwnership, type Ownership } from '../../events/tasks/ownership.js';
import type { TaskOwnershipAddedData } from '../../events/tasks/task-events.js';
import { checkId, taskNotFound } from '../../projections/tasks/refusal.js';
import { streamVersionIn, type TaskRecord } from '../../projections/tasks/state.js';
import { decideAndAppend } from './commit.js';
import type { TasksEnv } from './env.js';
import { parseOwnership, type OwnFlags } from './ownership-input.js';
import { refusalsAsErrors } from './refusals.js';

/** `task own` (tasks.md §7): an equal entry appends nothing (O4); same identity replaces (O5). */
export async function ownTask(env: TasksEnv, rawId: string, flags: OwnFlags, cwd?: string): Promise<{ task: TaskRecord; appended: boolean }> {
  const taskId = await refusalsAsErrors(() => checkId('task', rawId));
  const entry: Ownership = parseOwnership(flags, env.workspace, cwd);
  const committed = await decideAndAppend(env, (state) => {
    const task = state.tasks.get(taskId);
    if (!task) throw taskNotFound(taskId);
    const existing = task.ownership.find((o) => ownershipIdentity(o) === ownershipIdentity(entry));
    if (existing && sameOwnership(existing, entry)) return null;
    const stream = `task/${taskId}`;
    const data: TaskOwnershipAddedData = { task_id: taskId, ownership: entry };
    return { event: { type: 'task.ownership_added', stream, data, actor: env.actor, at: env.now }, expectedVersion: streamVersionIn(state, stream) };
  });
  return { task: committed.state.tasks.get(taskId)!, appended: committed.appended.length > 0 };
}
