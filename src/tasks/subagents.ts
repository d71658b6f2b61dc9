import { KIND_PATTERN } from '../../events/tasks/ids.js';
import { idempotencyKey } from '../../events/coordination/identities.js';
import { checkId } from '../../projections/tasks/refusal.js';
import type { SubagentRecord } from '../../projections/tasks/state.js';
import { invalidInput } from '../errors.js';
import { runTasksCommand } from './commit.js';
import { decideFinishSubagent, decideStartSubagent } from '../../deciders/tasks.js';
import type { TasksEnv } from './env.js';
import { newSubagentId } from './ids.js';
import { refusalsAsErrors } from './refusals.js';
import { requireActingSession } from './sessions.js';

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
  const handled = await runTasksCommand(env, (state) =>
    decideStartSubagent({ subagentId: newSubagentId(), sessionId, kind: flags.kind!, rootTask, idempotencyKey: flags.idempotencyKey }, state),
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
