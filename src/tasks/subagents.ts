import { KIND_PATTERN } from '../../events/tasks/ids.js';
import { idempotencyKey } from '../../events/coordination/identities.js';
import { checkId } from '../../projections/tasks/refusal.js';
import type { SubagentRecord } from '../../projections/tasks/state.js';
import { invalidField } from '../errors.js';
import { runTasksCommand } from './commit.js';
import { decideFinishSubagent, decideStartSubagent } from '../../deciders/tasks.js';
import type { TasksEnv } from './env.js';
import { newSubagentId } from './ids.js';
import { refusalsAsErrors } from './refusals.js';
import { requireActingSession } from './sessions.js';

/** `subagent start | finish` (tasks.md §8); a start's input by the domain's names (the CLI's `--root-task` is `root_task`). */
export interface SubagentStartInput {
  kind?: string | undefined;
  root_task?: string | undefined;
  idempotency_key?: string | undefined;
}

export async function startSubagent(env: TasksEnv, input: SubagentStartInput): Promise<SubagentRecord> {
  const sessionId = await refusalsAsErrors(() => requireActingSession(env.session));
  const { kind, root_task, idempotency_key } = input;
  if (kind === undefined) throw invalidField('is required', 'kind');
  if (!KIND_PATTERN.test(kind)) throw invalidField('must match ^[a-z][a-z0-9_]{0,63}$', 'kind');
  if (root_task === undefined) throw invalidField('is required', 'root_task');
  const rootTask = await refusalsAsErrors(() => checkId('task', root_task, 'root_task'));
  if (idempotency_key !== undefined && !idempotencyKey.safeParse(idempotency_key).success) {
    throw invalidField('must be 1–128 characters without control characters', 'idempotency_key');
  }
  const handled = await runTasksCommand(env, (state) =>
    decideStartSubagent({ subagentId: newSubagentId(), sessionId, kind, rootTask, idempotencyKey: idempotency_key }, state),
  );
  const finalId = handled.deduplicated ? String(handled.appended[0]?.data['subagent_id']) : handled.decision!.outcome.id;
  return handled.state.subagents.get(finalId)!;
}

/** A2: finishing sets finishedAt once; finishing again appends nothing and succeeds. */
export async function finishSubagent(env: TasksEnv, rawId: string): Promise<SubagentRecord> {
  const id = await refusalsAsErrors(() => checkId('subagent', rawId));
  const handled = await runTasksCommand(env, (state) => decideFinishSubagent({ subagentId: id }, state));
  return handled.state.subagents.get(id)!;
}
