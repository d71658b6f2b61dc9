import { ownershipIdentity, sameOwnership, type Ownership } from '../events/tasks/ownership.js';
import type { SubagentStartedData } from '../events/tasks/subagent-events.js';
import type { TaskCreatedData, TaskTransitionedData } from '../events/tasks/task-events.js';
import type { TaskState } from '../events/tasks/vocabulary.js';
import { machineAllows } from '../machines/task.js';
import { IllegalTaskTransitionError } from '../machines/task-table.js';
import { sessionNotFound, subagentNotFound, taskNotFound, TaskErrorCode } from '../projections/tasks/refusal.js';
import { streamVersionIn, type TasksState } from '../projections/tasks/state.js';
import { SessionStatus } from '../events/coordination/identities.js';
import type { SessionRecord } from '../projections/coordination/state.js';
import type { Decision } from './decision.js';
import { Refusal, refuseInput } from './refusal.js';

/**
 * The tasks domain's rules (tasks.md §5–§8) as deciders: each takes a command whose input is
 * already checked (ids, flags) and the tasks fold, and answers the one event to append with the
 * version of its stream as the fold saw it, or null / no events for an idempotent repeat. Ids of
 * new tasks and subagents come in the command: a decider draws nothing at random.
 */

/** The outcome of a command that creates or names one record: its id. */
export interface IdOutcome {
  id: string;
}

function one<R>(
  type: string,
  stream: string,
  data: Record<string, unknown>,
  expected: Decision['expected'][string],
  outcome: R,
  idempotencyKey?: string,
): Decision<R> {
  return { events: [{ type, stream, data }], expected: { [stream]: expected }, outcome, ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) };
}

/** A create repeated with the key of an earlier one (C6, A3): nothing to append, the first record named. */
function createdWithKey(
  records: Iterable<{ id: string; session_id: string; idempotency_key: string | null }>,
  sessionId: string,
  key: string | undefined,
): Decision<IdOutcome> | undefined {
  if (key === undefined) return undefined;
  for (const r of records) if (r.idempotency_key === key && r.session_id === sessionId) return { events: [], expected: {}, outcome: { id: r.id } };
  return undefined;
}

/** The owning session of a create (C1, C2): existing and not ended. */
export function requireOpenSession(state: TasksState, id: string): SessionRecord {
  const session = state.coordination.sessions.get(id);
  if (!session) throw sessionNotFound(id);
  if (session.stored_status !== SessionStatus.active) {
    throw new Refusal(TaskErrorCode.SESSION_ENDED, `Session ${id} has ended in status '${session.stored_status}' — tasks cannot be added to it.`, {
      session_id: id,
      status: session.stored_status,
    });
  }
  return session;
}

export interface CreateTask {
  taskId: string;
  sessionId: string;
  label: string;
  state: TaskState;
  activeForm?: string | undefined;
  parent?: string | undefined;
  subagentKind?: string | undefined;
  idempotencyKey?: string | undefined;
}

/** `task create` (§6): C1–C6; a repeat with the same key names the task created the first time. */
export function decideCreateTask(command: CreateTask, state: TasksState): Decision<IdOutcome> {
  const { sessionId, idempotencyKey: key, parent } = command;
  requireOpenSession(state, sessionId);
  const repeat = createdWithKey(state.tasks.values(), sessionId, key);
  if (repeat !== undefined) return repeat;
  if (parent !== undefined) {
    const p = state.tasks.get(parent);
    if (!p) throw taskNotFound(parent);
    if (p.session_id !== sessionId) throw refuseInput(`task ${parent} belongs to session ${p.session_id}, not ${sessionId}`, 'parent');
  }
  const data: TaskCreatedData = {
    task_id: command.taskId,
    session_id: sessionId,
    label: command.label,
    state: command.state,
    ...(command.activeForm !== undefined ? { active_form: command.activeForm } : {}),
    ...(parent !== undefined ? { parent_task_id: parent } : {}),
    ...(command.subagentKind !== undefined ? { subagent_kind: command.subagentKind } : {}),
  };
  return one('task.created', `task/${command.taskId}`, data, 'no_stream', { id: command.taskId }, key);
}

export interface TransitionTask {
  taskId: string;
  to: TaskState;
  data: Omit<TaskTransitionedData, 'task_id' | 'from' | 'to'>;
}

/** `task transition` (§5): the task exists, the xstate machine allows the move, X8 holds. */
export function decideTransition(command: TransitionTask, state: TasksState): Decision<IdOutcome> {
  const task = state.tasks.get(command.taskId);
  if (!task) throw taskNotFound(command.taskId);
  const supersededBy = command.data.superseded_by;
  if (supersededBy !== undefined && !state.tasks.has(supersededBy)) throw taskNotFound(supersededBy);
  // The trust boundary: the xstate machine itself, not the fold's table.
  if (!machineAllows(task.id, task.state, command.to, supersededBy)) throw new IllegalTaskTransitionError(task.id, task.state, command.to);
  const stream = `task/${task.id}`;
  const data: TaskTransitionedData = { task_id: task.id, from: task.state, to: command.to, ...command.data };
  return one('task.transitioned', stream, data, streamVersionIn(state, stream), { id: task.id });
}

export interface OwnTask {
  taskId: string;
  entry: Ownership;
}

/** `task own` (§7): an equal entry appends nothing (O4); the same identity replaces (O5). */
export function decideOwnTask(command: OwnTask, state: TasksState): Decision<IdOutcome> | null {
  const task = state.tasks.get(command.taskId);
  if (!task) throw taskNotFound(command.taskId);
  const existing = task.ownership.find((o) => ownershipIdentity(o) === ownershipIdentity(command.entry));
  if (existing && sameOwnership(existing, command.entry)) return null;
  const stream = `task/${task.id}`;
  return one('task.ownership_added', stream, { task_id: task.id, ownership: command.entry }, streamVersionIn(state, stream), { id: task.id });
}

export interface StartSubagent {
  subagentId: string;
  sessionId: string;
  kind: string;
  rootTask: string;
  idempotencyKey?: string | undefined;
}

/** `subagent start` (§8): under a task of the acting, open session; a repeated key names the first. */
export function decideStartSubagent(command: StartSubagent, state: TasksState): Decision<IdOutcome> {
  const { sessionId, idempotencyKey: key, rootTask } = command;
  requireOpenSession(state, sessionId);
  const repeat = createdWithKey(state.subagents.values(), sessionId, key);
  if (repeat !== undefined) return repeat;
  const root = state.tasks.get(rootTask);
  if (!root) throw taskNotFound(rootTask);
  if (root.session_id !== sessionId) {
    throw refuseInput(`task ${rootTask} belongs to session ${root.session_id}, not ${sessionId}`, 'root_task');
  }
  const data: SubagentStartedData = { subagent_id: command.subagentId, session_id: sessionId, kind: command.kind, root_task_id: rootTask };
  return one('subagent.started', `subagent/${command.subagentId}`, data, 'no_stream', { id: command.subagentId }, key);
}

/** `subagent finish` (A2): sets finished_at once; finishing again appends nothing. */
export function decideFinishSubagent(command: { subagentId: string }, state: TasksState): Decision<IdOutcome> | null {
  const subagent = state.subagents.get(command.subagentId);
  if (!subagent) throw subagentNotFound(command.subagentId);
  if (subagent.finished_at !== null) return null;
  const stream = `subagent/${subagent.id}`;
  return one('subagent.finished', stream, { subagent_id: subagent.id }, streamVersionIn(state, stream), { id: subagent.id });
}
