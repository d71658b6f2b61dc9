import type { SessionStatus } from '../../events/coordination/vocabulary.js';
import type { Ownership } from '../../events/tasks/ownership.js';
import { orderedOwnership } from '../../events/tasks/ownership-terms.js';
import type { TaskState, ErrorClass } from '../../events/tasks/terms.js';
import { currentLapse } from '../coordination/sessions.js';
import type { SessionRecord } from '../coordination/state.js';
import type { HistoryEntry, SubagentRecord, TaskRecord, TasksState } from './state.js';

/**
 * The wizard's shapes (tasks.md §10.3): camelCase keys in the wizard's order, epoch-ms times,
 * optional fields omitted (never null) except startedAt, subagentKind and a subagent's finishedAt.
 */
const ms = (iso: string): number => Date.parse(iso);

export interface WizardCheckpoint {
  id: string;
  kind: string;
  summary?: string;
  enteredAt: number;
}

export interface WizardTask {
  id: string;
  sessionId: string;
  label: string;
  activeForm?: string;
  state: TaskState;
  ownership: Ownership[];
  subagentKind: string | null;
  parentTaskId?: string;
  createdAt: number;
  updatedAt: number;
  startedAt: number | null;
  waitingFor?: WizardCheckpoint;
  blockedReason?: string;
  result?: { outcome: TaskState; summary?: string; error?: { message: string; class: ErrorClass }; finishedAt: number };
  supersededBy?: string;
}

export function wizardCheckpoint(w: NonNullable<TaskRecord['waiting_for']>): WizardCheckpoint {
  return { id: w.id, kind: w.kind, ...(w.summary !== null ? { summary: w.summary } : {}), enteredAt: ms(w.entered_at) };
}

export function wizardTask(t: TaskRecord): WizardTask {
  return {
    id: t.id,
    sessionId: t.session_id,
    label: t.label,
    ...(t.active_form !== null ? { activeForm: t.active_form } : {}),
    state: t.state,
    ownership: t.ownership.map(orderedOwnership),
    subagentKind: t.subagent_kind,
    ...(t.parent_task_id !== null ? { parentTaskId: t.parent_task_id } : {}),
    createdAt: ms(t.created_at),
    updatedAt: ms(t.updated_at),
    startedAt: t.started_at === null ? null : ms(t.started_at),
    ...(t.waiting_for !== null ? { waitingFor: wizardCheckpoint(t.waiting_for) } : {}),
    ...(t.blocked_reason !== null ? { blockedReason: t.blocked_reason } : {}),
    ...(t.result !== null
      ? {
          result: {
            outcome: t.result.outcome,
            ...(t.result.summary !== null ? { summary: t.result.summary } : {}),
            ...(t.result.error !== null ? { error: { message: t.result.error.message, class: t.result.error.class } } : {}),
            finishedAt: ms(t.result.finished_at),
          },
        }
      : {}),
    ...(t.superseded_by !== null ? { supersededBy: t.superseded_by } : {}),
  };
}

export interface WizardSubagent {
  id: string;
  sessionId: string;
  kind: string;
  rootTaskId: string;
  createdAt: number;
  finishedAt: number | null;
}

export function wizardSubagent(s: SubagentRecord): WizardSubagent {
  return {
    id: s.id,
    sessionId: s.session_id,
    kind: s.kind,
    rootTaskId: s.root_task_id,
    createdAt: ms(s.created_at),
    finishedAt: s.finished_at === null ? null : ms(s.finished_at),
  };
}

export interface WizardSession {
  id: string;
  installDir: string;
  createdAt: number;
  updatedAt: number;
  goal?: string;
  branch?: string;
  worktree?: string;
  status: SessionStatus;
  finishedAt?: number;
  baton: {
    display_name: string;
    agent_identity?: string;
    role?: string;
    wu_id?: string;
    lane?: string;
    client_type?: string;
    last_heartbeat_at: string;
    stored_status: SessionStatus;
    /** Its recorded lapse while it stands (coordination/sessions.ts `currentLapse`): the WUs it held when its lease lapsed. */
    lapse?: WizardLapse;
  };
}

export interface WizardLapse {
  last_seen: string;
  lapsed_at: string;
  ttl_seconds: number;
  held_wus: string[];
  /** The `session.lapsed` event that recorded it. */
  seq: number;
  recorded_at: string;
}

function lapseOf(s: SessionRecord): { lapse?: WizardLapse } {
  const lapse = currentLapse(s);
  if (lapse === null) return {};
  return {
    lapse: {
      last_seen: lapse.last_seen,
      lapsed_at: lapse.lapsed_at,
      ttl_seconds: lapse.ttl_seconds,
      held_wus: [...lapse.held_wus],
      seq: lapse.seq,
      recorded_at: lapse.at,
    },
  };
}

function opt<K extends string>(key: K, value: string | null): Partial<Record<K, string>> {
  return value === null ? {} : ({ [key]: value } as Record<K, string>);
}

export function wizardSession(s: SessionRecord, status: SessionStatus, installDir: string): WizardSession {
  return {
    id: s.session_id,
    installDir,
    createdAt: ms(s.created_at),
    updatedAt: ms(s.updated_at),
    ...opt('goal', s.goal),
    ...opt('branch', s.branch),
    ...opt('worktree', s.worktree),
    status,
    ...(s.finished_at !== null ? { finishedAt: ms(s.finished_at) } : {}),
    baton: {
      display_name: s.display_name,
      ...opt('agent_identity', s.agent_identity),
      ...opt('role', s.role),
      ...opt('wu_id', s.wu_id),
      ...opt('lane', s.lane),
      ...opt('client_type', s.client_type),
      last_heartbeat_at: s.last_heartbeat_at,
      stored_status: s.stored_status,
      ...lapseOf(s),
    },
  };
}

export interface WizardHistoryEntry {
  seq: number;
  at: string;
  type: HistoryEntry['type'];
  actor: string;
  from?: TaskState;
  to?: TaskState;
  reason?: string;
  ownership?: Ownership;
}

export function historyEntry(h: HistoryEntry): WizardHistoryEntry {
  return {
    seq: h.seq,
    at: h.at,
    type: h.type,
    actor: h.actor,
    ...(h.from !== undefined ? { from: h.from } : {}),
    ...(h.to !== undefined ? { to: h.to } : {}),
    ...(h.reason !== undefined ? { reason: h.reason } : {}),
    ...(h.ownership !== undefined ? { ownership: orderedOwnership(h.ownership) } : {}),
  };
}

/** Tasks in creation order (the Map keeps insertion order). */
export function tasksInOrder(state: TasksState): TaskRecord[] {
  return [...state.tasks.values()];
}
