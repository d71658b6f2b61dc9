import { ERROR_CLASSES, isTerminal, TaskState, TASK_STATES, type ErrorClass } from '../../events/tasks/vocabulary.js';
import { checkId } from '../../projections/tasks/refusal.js';
import type { TaskRecord } from '../../projections/tasks/state.js';
import { invalidField, invalidInput } from '../errors.js';
import { runTasksCommand } from './commit.js';
import { decideTransition, type TransitionTask } from '../../deciders/tasks.js';
import type { TasksEnv } from './env.js';
import { invalidNaming, refusalsAsErrors } from './refusals.js';

/** `task transition <id> <state>` (tasks.md §5): what comes with the move, by the domain's names. */
export interface TransitionInput {
  reason?: string | undefined;
  checkpoint_id?: string | undefined;
  checkpoint_kind?: string | undefined;
  checkpoint_summary?: string | undefined;
  superseded_by?: string | undefined;
  summary?: string | undefined;
  error_class?: string | undefined;
  error_message?: string | undefined;
}

export type TransitionRequest = TransitionTask;

function bounded(value: string, max: number, field: string): string {
  if (value.length === 0) throw invalidField('must not be empty', field);
  if (value.length > max) throw invalidField(`must be at most ${max} characters`, field);
  return value;
}

/** When either is needed, both of two inputs: the first one missing is at fault. */
function together(input: TransitionInput, first: keyof TransitionInput, second: keyof TransitionInput): void {
  if (input[first] !== undefined && input[second] !== undefined) return;
  throw invalidNaming(input[first] === undefined ? first : second, [first, second], (a, b) => `${a} and ${b} must be given together`);
}

/** An input the target state would ignore is refused (X7). */
function checkEffects(to: TaskState, input: TransitionInput): void {
  const refuse = (field: string, rule: string): never => {
    throw invalidField(`has no effect ${rule}; refused rather than ignored`, field);
  };
  const checkpointGiven = input.checkpoint_id !== undefined || input.checkpoint_kind !== undefined || input.checkpoint_summary !== undefined;
  if (checkpointGiven && to !== TaskState.waiting_for_user) {
    refuse(
      input.checkpoint_id !== undefined ? 'checkpoint_id' : input.checkpoint_kind !== undefined ? 'checkpoint_kind' : 'checkpoint_summary',
      'unless the target is waiting_for_user',
    );
  }
  if (checkpointGiven) together(input, 'checkpoint_id', 'checkpoint_kind');
  if (input.superseded_by !== undefined && to !== TaskState.superseded) refuse('superseded_by', 'unless the target is superseded');
  if (input.summary !== undefined && !isTerminal(to)) refuse('summary', 'unless the target is terminal');
  const errorGiven = input.error_class !== undefined || input.error_message !== undefined;
  if (errorGiven && to !== TaskState.failed && to !== TaskState.cancelled) {
    refuse(input.error_class !== undefined ? 'error_class' : 'error_message', 'unless the target is failed or cancelled');
  }
  if (errorGiven) together(input, 'error_class', 'error_message');
  if (input.error_class !== undefined && !(ERROR_CLASSES as readonly string[]).includes(input.error_class)) {
    throw invalidField(`must be one of ${ERROR_CLASSES.join(', ')}`, 'error_class');
  }
}

/** Everything that can be checked before reading the log: id, state, the inputs (X1, X5, X7, X9). */
export function parseTransition(rawId: string, rawState: string, input: TransitionInput): TransitionRequest {
  const taskId = checkId('task', rawId);
  if (!(TASK_STATES as readonly string[]).includes(rawState)) {
    throw invalidInput(`Invalid state value: '${rawState}'. Allowed: ${TASK_STATES.join(', ')}.`);
  }
  const to = rawState as TaskState;
  checkEffects(to, input);
  const supersededBy = input.superseded_by === undefined ? undefined : checkId('task', input.superseded_by, 'superseded_by');
  if (supersededBy === taskId) throw invalidField('a task cannot supersede itself', 'superseded_by');

  const data: TransitionRequest['data'] = {};
  if (input.reason !== undefined) data.reason = bounded(input.reason, 2000, 'reason');
  if (input.checkpoint_id !== undefined && input.checkpoint_kind !== undefined) {
    data.checkpoint = {
      id: bounded(input.checkpoint_id, 200, 'checkpoint_id'),
      kind: bounded(input.checkpoint_kind, 200, 'checkpoint_kind'),
      ...(input.checkpoint_summary !== undefined ? { summary: bounded(input.checkpoint_summary, 2000, 'checkpoint_summary') } : {}),
    };
  }
  if (supersededBy !== undefined) data.superseded_by = supersededBy;
  if (isTerminal(to)) {
    data.result = {
      outcome: to,
      ...(input.summary !== undefined ? { summary: bounded(input.summary, 2000, 'summary') } : {}),
      ...(input.error_class !== undefined && input.error_message !== undefined
        ? { error: { class: input.error_class as ErrorClass, message: bounded(input.error_message, 2000, 'error_message') } }
        : {}),
    };
  }
  return { taskId, to, data };
}

export async function transitionTask(env: TasksEnv, rawId: string, rawState: string, input: TransitionInput): Promise<TaskRecord> {
  const request = await refusalsAsErrors(() => parseTransition(rawId, rawState, input));
  const handled = await runTasksCommand(env, (state) => decideTransition(request, state));
  return handled.state.tasks.get(request.taskId)!;
}
