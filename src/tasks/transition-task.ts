import { ERROR_CLASSES, isTerminal, TaskState, TASK_STATES, type ErrorClass } from '../../events/tasks/vocabulary.js';
import { checkId } from '../../projections/tasks/refusal.js';
import type { TaskRecord } from '../../projections/tasks/state.js';
import { invalidInput } from '../errors.js';
import { runTasksCommand } from './commit.js';
import { decideTransition, type TransitionTask } from '../../deciders/tasks.js';
import type { TasksEnv } from './env.js';
import { refusalsAsErrors } from './refusals.js';

/** `task transition <id> <state>` (tasks.md §5). */
export interface TransitionFlags {
  reason?: string | undefined;
  checkpointId?: string | undefined;
  checkpointKind?: string | undefined;
  checkpointSummary?: string | undefined;
  supersededBy?: string | undefined;
  summary?: string | undefined;
  errorClass?: string | undefined;
  errorMessage?: string | undefined;
}

export type TransitionRequest = TransitionTask;

function bounded(value: string, max: number, flag: string): string {
  if (value.length === 0) throw invalidInput('must not be empty', flag);
  if (value.length > max) throw invalidInput(`must be at most ${max} characters`, flag);
  return value;
}

/** Everything that can be checked before reading the log: id, state, flags (X1, X5, X7, X9). */
export function parseTransition(rawId: string, rawState: string, flags: TransitionFlags): TransitionRequest {
  const taskId = checkId('task', rawId);
  if (!(TASK_STATES as readonly string[]).includes(rawState)) {
    throw invalidInput(`Invalid state value: '${rawState}'. Allowed: ${TASK_STATES.join(', ')}.`);
  }
  const to = rawState as TaskState;
  const refuse = (flag: string, rule: string): never => {
    throw invalidInput(`has no effect ${rule}; refused rather than ignored`, flag);
  };
  const checkpointGiven = flags.checkpointId !== undefined || flags.checkpointKind !== undefined || flags.checkpointSummary !== undefined;
  if (checkpointGiven && to !== TaskState.waiting_for_user) {
    refuse(
      flags.checkpointId !== undefined ? '--checkpoint-id' : flags.checkpointKind !== undefined ? '--checkpoint-kind' : '--checkpoint-summary',
      'unless the target is waiting_for_user',
    );
  }
  if (checkpointGiven && (flags.checkpointId === undefined || flags.checkpointKind === undefined)) {
    throw invalidInput(
      '--checkpoint-id and --checkpoint-kind must be given together',
      flags.checkpointId === undefined ? '--checkpoint-id' : '--checkpoint-kind',
    );
  }
  if (flags.supersededBy !== undefined && to !== TaskState.superseded) refuse('--superseded-by', 'unless the target is superseded');
  if (flags.summary !== undefined && !isTerminal(to)) refuse('--summary', 'unless the target is terminal');
  const errorGiven = flags.errorClass !== undefined || flags.errorMessage !== undefined;
  if (errorGiven && to !== TaskState.failed && to !== TaskState.cancelled) {
    refuse(flags.errorClass !== undefined ? '--error-class' : '--error-message', 'unless the target is failed or cancelled');
  }
  if (errorGiven && (flags.errorClass === undefined || flags.errorMessage === undefined)) {
    throw invalidInput('--error-class and --error-message must be given together', flags.errorClass === undefined ? '--error-class' : '--error-message');
  }
  if (flags.errorClass !== undefined && !(ERROR_CLASSES as readonly string[]).includes(flags.errorClass)) {
    throw invalidInput(`must be one of ${ERROR_CLASSES.join(', ')}`, '--error-class');
  }
  const supersededBy = flags.supersededBy === undefined ? undefined : checkId('task', flags.supersededBy, '--superseded-by');
  if (supersededBy === taskId) throw invalidInput('a task cannot supersede itself', '--superseded-by');

  const data: TransitionRequest['data'] = {};
  if (flags.reason !== undefined) data.reason = bounded(flags.reason, 2000, '--reason');
  if (flags.checkpointId !== undefined && flags.checkpointKind !== undefined) {
    data.checkpoint = {
      id: bounded(flags.checkpointId, 200, '--checkpoint-id'),
      kind: bounded(flags.checkpointKind, 200, '--checkpoint-kind'),
      ...(flags.checkpointSummary !== undefined ? { summary: bounded(flags.checkpointSummary, 2000, '--checkpoint-summary') } : {}),
    };
  }
  if (supersededBy !== undefined) data.superseded_by = supersededBy;
  if (isTerminal(to)) {
    data.result = {
      outcome: to,
      ...(flags.summary !== undefined ? { summary: bounded(flags.summary, 2000, '--summary') } : {}),
      ...(flags.errorClass !== undefined && flags.errorMessage !== undefined
        ? { error: { class: flags.errorClass as ErrorClass, message: bounded(flags.errorMessage, 2000, '--error-message') } }
        : {}),
    };
  }
  return { taskId, to, data };
}

export async function transitionTask(env: TasksEnv, rawId: string, rawState: string, flags: TransitionFlags): Promise<TaskRecord> {
  const request = await refusalsAsErrors(() => parseTransition(rawId, rawState, flags));
  const handled = await runTasksCommand(env, (state) => decideTransition(request, state));
  return handled.state.tasks.get(request.taskId)!;
}
