import type { BatonEvent, EventOf } from '../../events/baton-event.js';
import { SessionStatus } from '../../events/coordination/vocabulary.js';
import type { Ownership } from '../../events/tasks/ownership.js';
import { ownershipIdentity, sameOwnership } from '../../events/tasks/ownership-terms.js';
import { CREATABLE_STATES, isTerminal, TaskState, type ErrorClass } from '../../events/tasks/terms.js';
import { rejectionText } from '../rejection-text.js';
import { isLegalTransition, illegalTransitionMessage } from '../../machines/task-table.js';
import { applyCoordination, deserializeCoordination, initCoordination, serializeCoordination, type CoordinationState } from '../coordination/state.js';

/**
 * The tasks fold (tasks.md §11.2): sessions (the coordination fold, reused as is), tasks and
 * subagents. Every task event goes through the machine's transition table; an event it rejects
 * changes nothing and becomes an integrity finding with its seq. Never throws on history.
 */
export interface HistoryEntry {
  seq: number;
  at: string;
  type: 'created' | 'transitioned' | 'ownership_added';
  actor: string;
  from?: TaskState;
  to?: TaskState;
  reason?: string;
  ownership?: Ownership;
}

export interface TaskFinding {
  seq: number;
  type: string;
  reason: string;
  stream: string;
}

export interface TaskRecord {
  id: string;
  session_id: string;
  label: string;
  active_form: string | null;
  state: TaskState;
  ownership: Ownership[];
  subagent_kind: string | null;
  parent_task_id: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  waiting_for: { id: string; kind: string; summary: string | null; entered_at: string } | null;
  blocked_reason: string | null;
  result: { outcome: TaskState; summary: string | null; error: { message: string; class: ErrorClass } | null; finished_at: string } | null;
  superseded_by: string | null;
  /** Seq of the latest change (the tie-break of §9.3) and of the create (creation order). */
  last_seq: number;
  created_seq: number;
  /** The idempotency key of the create, so a repeat returns this task (C6). */
  idempotency_key: string | null;
  history: HistoryEntry[];
}

export interface SubagentRecord {
  id: string;
  session_id: string;
  kind: string;
  root_task_id: string;
  created_at: string;
  finished_at: string | null;
  idempotency_key: string | null;
}

export interface TasksState {
  coordination: CoordinationState;
  /** Insertion order = creation order. */
  tasks: Map<string, TaskRecord>;
  subagents: Map<string, SubagentRecord>;
  findings: TaskFinding[];
  /** Events seen per `task/…` and `subagent/…` stream, rejected ones included: the expected
   * version a command appends with is the one its decision was made on, never a later read. */
  stream_versions: Map<string, number>;
}

export function initTasks(): TasksState {
  return { coordination: initCoordination(), tasks: new Map(), subagents: new Map(), findings: [], stream_versions: new Map() };
}

export function streamVersionIn(state: TasksState, stream: string): number {
  return state.stream_versions.get(stream) ?? 0;
}

/** The event types this fold reads (a refused one of these is a finding; others are ignored). */
const TASK_FOLD_TYPES: ReadonlySet<string> = new Set(['task.created', 'task.transitioned', 'task.ownership_added', 'subagent.started', 'subagent.finished']);

type Finding = (reason: string) => TasksState;

export function applyTasks(state: TasksState, event: BatonEvent): TasksState {
  applyCoordination(state.coordination, event);
  if (event.stream.startsWith('task/') || event.stream.startsWith('subagent/')) {
    state.stream_versions.set(event.stream, (state.stream_versions.get(event.stream) ?? 0) + 1);
  }
  const finding: Finding = (reason) => {
    state.findings.push({ seq: event.seq, type: event.type, reason, stream: event.stream });
    return state;
  };
  if (event.rejected !== undefined) return TASK_FOLD_TYPES.has(event.type) ? finding(rejectionText(event)) : state;
  switch (event.type) {
    case 'task.created':
      return applyCreated(state, event, finding);
    case 'task.transitioned':
      return applyTransitioned(state, event, finding);
    case 'task.ownership_added':
      return applyOwnershipAdded(state, event, finding);
    case 'subagent.started':
      return applySubagentStarted(state, event, finding);
    case 'subagent.finished':
      return applySubagentFinished(state, event, finding);
    default:
      return state;
  }
}

function applyOwnershipAdded(state: TasksState, event: EventOf<'task.ownership_added'>, finding: Finding): TasksState {
  const task = state.tasks.get(event.data.task_id);
  if (!task || event.stream !== `task/${task.id}`) return finding(`ownership for unknown task ${event.data.task_id}`);
  const entry = event.data.ownership;
  const index = task.ownership.findIndex((o) => ownershipIdentity(o) === ownershipIdentity(entry));
  if (index >= 0 && sameOwnership(task.ownership[index]!, entry)) return state;
  if (index >= 0) task.ownership[index] = entry;
  else task.ownership.push(entry);
  task.updated_at = event.at;
  task.last_seq = event.seq;
  task.history.push({ seq: event.seq, at: event.at, type: 'ownership_added', actor: event.actor, ownership: entry });
  return state;
}

function applySubagentStarted(state: TasksState, event: EventOf<'subagent.started'>, finding: Finding): TasksState {
  const d = event.data;
  if (event.stream !== `subagent/${d.subagent_id}`) return finding(`subagent ${d.subagent_id} started on ${event.stream}`);
  if (state.subagents.has(d.subagent_id)) return finding(`subagent ${d.subagent_id} started twice`);
  const root = state.tasks.get(d.root_task_id);
  if (!root || root.session_id !== d.session_id) return finding(`root task ${d.root_task_id} is not a task of session ${d.session_id}`);
  state.subagents.set(d.subagent_id, {
    id: d.subagent_id,
    session_id: d.session_id,
    kind: d.kind,
    root_task_id: d.root_task_id,
    created_at: event.at,
    finished_at: null,
    idempotency_key: event.idempotency_key ?? null,
  });
  return state;
}

function applySubagentFinished(state: TasksState, event: EventOf<'subagent.finished'>, finding: Finding): TasksState {
  const subagent = state.subagents.get(event.data.subagent_id);
  if (!subagent) return finding(`finish of unknown subagent ${event.data.subagent_id}`);
  if (subagent.finished_at !== null) return finding(`subagent ${subagent.id} finished twice`);
  subagent.finished_at = event.at;
  return state;
}

function applyCreated(state: TasksState, event: EventOf<'task.created'>, finding: Finding): TasksState {
  const d = event.data;
  if (event.stream !== `task/${d.task_id}`) return finding(`task ${d.task_id} created on ${event.stream}`);
  if (state.tasks.has(d.task_id)) return finding(`task ${d.task_id} created twice`);
  if (!CREATABLE_STATES.includes(d.state)) return finding(`a task can only be created queued or running; got '${d.state}'`);
  const session = state.coordination.sessions.get(d.session_id);
  if (!session) return finding(`unknown session ${d.session_id}`);
  // The coordination fold already ran for this event; an end at this very seq cannot happen.
  if (session.stored_status !== SessionStatus.active) return finding(`session ${d.session_id} has ended in status '${session.stored_status}'`);
  if (d.parent_task_id !== undefined) {
    const parent = state.tasks.get(d.parent_task_id);
    if (!parent || parent.session_id !== d.session_id) return finding(`parent ${d.parent_task_id} is not a task of session ${d.session_id}`);
  }
  state.tasks.set(d.task_id, {
    id: d.task_id,
    session_id: d.session_id,
    label: d.label,
    active_form: d.active_form ?? null,
    state: d.state,
    ownership: [],
    subagent_kind: d.subagent_kind ?? null,
    parent_task_id: d.parent_task_id ?? null,
    created_at: event.at,
    updated_at: event.at,
    started_at: d.state === TaskState.running ? event.at : null,
    waiting_for: null,
    blocked_reason: null,
    result: null,
    superseded_by: null,
    last_seq: event.seq,
    created_seq: event.seq,
    idempotency_key: event.idempotency_key ?? null,
    history: [{ seq: event.seq, at: event.at, type: 'created', actor: event.actor, to: d.state }],
  });
  return state;
}

function applyTransitioned(state: TasksState, event: EventOf<'task.transitioned'>, finding: Finding): TasksState {
  const d = event.data;
  const task = state.tasks.get(d.task_id);
  if (!task || event.stream !== `task/${task.id}`) return finding(`transition of unknown task ${d.task_id}`);
  if (d.from !== task.state) return finding(`from '${d.from}' differs from the state held, '${task.state}'`);
  if (!isLegalTransition(d.from, d.to)) return finding(illegalTransitionMessage(task.id, d.from, d.to));
  if (d.superseded_by !== undefined && (d.to !== TaskState.superseded || d.superseded_by === task.id || !state.tasks.has(d.superseded_by))) {
    return finding(`superseded_by ${d.superseded_by} is not another existing task`);
  }
  if (d.checkpoint !== undefined && d.to !== TaskState.waiting_for_user) return finding('a checkpoint outside waiting_for_user');
  if (d.result !== undefined && (d.result.outcome !== d.to || !isTerminal(d.to)))
    return finding(`result outcome '${d.result.outcome}' differs from the target '${d.to}'`);
  if (d.result?.error !== undefined && d.to !== TaskState.failed && d.to !== TaskState.cancelled)
    return finding('an error on a result that is neither failed nor cancelled');

  task.state = d.to;
  task.updated_at = event.at;
  task.last_seq = event.seq;
  if (d.to === TaskState.running && task.started_at === null) task.started_at = event.at;
  task.waiting_for =
    d.to === TaskState.waiting_for_user && d.checkpoint !== undefined
      ? { id: d.checkpoint.id, kind: d.checkpoint.kind, summary: d.checkpoint.summary ?? null, entered_at: event.at }
      : null;
  task.blocked_reason = d.to === TaskState.blocked ? (d.reason ?? null) : null;
  if (isTerminal(d.to)) {
    task.result = {
      outcome: d.to,
      summary: d.result?.summary ?? null,
      error: d.result?.error ? { message: d.result.error.message, class: d.result.error.class } : null,
      finished_at: event.at,
    };
  }
  if (d.superseded_by !== undefined) task.superseded_by = d.superseded_by;
  task.history.push({
    seq: event.seq,
    at: event.at,
    type: 'transitioned',
    actor: event.actor,
    from: d.from,
    to: d.to,
    ...(d.reason !== undefined ? { reason: d.reason } : {}),
  });
  return state;
}

// ---- snapshots: Maps as entry lists in insertion order ----

interface TasksJson {
  coordination: unknown;
  tasks: [string, TaskRecord][];
  subagents: [string, SubagentRecord][];
  findings: TaskFinding[];
  stream_versions: [string, number][];
}

export function serializeTasks(state: TasksState): TasksJson {
  return {
    coordination: serializeCoordination(state.coordination),
    tasks: [...state.tasks],
    subagents: [...state.subagents],
    findings: state.findings,
    stream_versions: [...state.stream_versions],
  };
}

export function deserializeTasks(json: unknown): TasksState {
  if (typeof json !== 'object' || json === null) throw new Error('tasks state must be an object');
  const j = json as TasksJson;
  if (!Array.isArray(j.tasks) || !Array.isArray(j.subagents) || !Array.isArray(j.findings) || !Array.isArray(j.stream_versions)) {
    throw new Error('tasks state: lists expected');
  }
  return {
    coordination: deserializeCoordination(j.coordination),
    tasks: new Map(j.tasks),
    subagents: new Map(j.subagents),
    findings: j.findings,
    stream_versions: new Map(j.stream_versions),
  };
}
