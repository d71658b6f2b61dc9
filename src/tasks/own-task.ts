import type { Ownership } from '../../events/tasks/ownership.js';
import { decideOwnTask } from '../../deciders/tasks.js';
import { checkId } from '../../projections/tasks/refusal.js';
import type { TaskRecord, TasksState } from '../../projections/tasks/state.js';
import { runTasksCommand } from './commit.js';
import type { TasksEnv } from './env.js';
import { parseOwnership, type OwnershipInput } from './ownership-input.js';
import { refusalsAsErrors } from './refusals.js';

/** `task own` (tasks.md §7): an equal entry appends nothing (O4); same identity replaces (O5). The fold after it comes along. */
export async function ownTask(
  env: TasksEnv,
  rawId: string,
  input: OwnershipInput,
  cwd?: string,
): Promise<{ task: TaskRecord; appended: boolean; state: TasksState }> {
  const taskId = await refusalsAsErrors(() => checkId('task', rawId));
  const entry: Ownership = parseOwnership(input, env.workspace, cwd);
  const handled = await runTasksCommand(env, (state) => decideOwnTask({ taskId, entry }, state));
  return { task: handled.state.tasks.get(taskId)!, appended: handled.appended.length > 0, state: handled.state };
}
