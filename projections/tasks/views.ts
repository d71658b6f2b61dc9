import { SessionStatus } from '../../events/coordination/vocabulary.js';
import type { TaskState } from '../../events/tasks/terms.js';
import { effectiveStatus, readerIdentityOf } from '../coordination/sessions.js';
import { inboxRecords } from '../coordination/signals.js';
import type { HeldWorkUnit } from '../work-units/held.js';
import { heldWorkUnitsView, lastStoppingPoint, type HeldWorkUnitView, type LastStoppingPoint } from './last-stopping-point.js';
import { checkId, sessionNotFound, taskNotFound } from './refusal.js';
import type { TasksState } from './state.js';
import {
  historyEntry,
  tasksInOrder,
  wizardSession,
  wizardSubagent,
  wizardTask,
  type WizardHistoryEntry,
  type WizardSession,
  type WizardSubagent,
  type WizardTask,
} from './wizard-shapes.js';

/**
 * The envelopes of tasks.md §10.3, built from the fold (pure). Each starts with `v`, `type`,
 * `generated_at` (ISO), `generatedAt` (the same ISO, wizard key) and `installDir`.
 * Malformed or unknown ids are refused with a Refusal (§2).
 */
export interface ViewContext {
  now: string;
  installDir: string;
  invocation: readonly string[];
  /** The hosted profile's workspace filter for signal counts. */
  workspaceFilter?: string | undefined;
}

interface Head<T extends string> {
  v: 1;
  type: T;
  generated_at: string;
  generatedAt: string;
  installDir: string;
}

function head<T extends string>(type: T, ctx: ViewContext): Head<T> {
  return { v: 1, type, generated_at: ctx.now, generatedAt: ctx.now, installDir: ctx.installDir };
}

export interface InitiativeSummary {
  initiative: string;
  title: string | null;
  blocked_by_integrity: boolean;
  next_safe_actions: Record<string, unknown>[];
}

export interface StatusEnvelope extends Head<'orchestration_status'> {
  storePath: string;
  storeExists: boolean;
  lastStoppingPoint: LastStoppingPoint;
  baton: {
    scope_session_id: string | null;
    current_session_status: SessionStatus | null;
    initiatives: InitiativeSummary[];
    unread_signals: { reader: string | null; count: number };
    integrity_finding_count: number;
    /** The most recent findings (at most STATUS_FINDINGS_SHOWN, oldest first); the count is of all of them. */
    integrity_findings: { seq: number; stream: string; type: string; reason: string }[];
    /** The work units the current session holds, in the order to go on with them, each with its commands. */
    held_work_units: HeldWorkUnitView[];
  };
}

/** How many integrity findings `baton status` lists: it is read at every stop, so the latest ones. */
export const STATUS_FINDINGS_SHOWN = 20;

export interface StatusInputs {
  storePath: string;
  storeExists: boolean;
  /** The scope session (`--session` on status, the id of `resume`). Checked here. */
  scope?: string | undefined;
  /** The acting session, for the unread-signal reader (defaults to the scope). */
  acting?: string | undefined;
  /** Initiatives with open WUs and their next safe actions (work-units.md), when that fold exists. */
  initiatives?: InitiativeSummary[];
  /** Each session's held work units, when the work-unit fold was read. */
  held?: ReadonlyMap<string, readonly HeldWorkUnit[]>;
}

export function requireSession(state: TasksState, raw: string, field?: string): string {
  const id = checkId('session', raw, field);
  if (!state.coordination.sessions.has(id)) throw sessionNotFound(id);
  return id;
}

export function requireTask(state: TasksState, raw: string, field?: string): string {
  const id = checkId('task', raw, field);
  if (!state.tasks.has(id)) throw taskNotFound(id);
  return id;
}

export function statusEnvelope(state: TasksState, ctx: ViewContext, inputs: StatusInputs): StatusEnvelope {
  const scope = inputs.scope === undefined ? undefined : requireSession(state, inputs.scope, 'session');
  const lsp = lastStoppingPoint(state, { now: ctx.now, installDir: ctx.installDir, invocation: ctx.invocation, scope, held: inputs.held });
  const current = lsp.currentSessionId === null ? undefined : state.coordination.sessions.get(lsp.currentSessionId);
  const held = current === undefined ? [] : (inputs.held?.get(current.session_id) ?? []);
  const readerSession = state.coordination.sessions.get(inputs.acting ?? scope ?? '') ?? current;
  const reader = readerSession ? readerIdentityOf(readerSession) : null;
  const count = reader === null ? 0 : inboxRecords(state.coordination, { reader, all: false, workspace: ctx.workspaceFilter }).length;
  return {
    ...head('orchestration_status', ctx),
    storePath: inputs.storePath,
    storeExists: inputs.storeExists,
    lastStoppingPoint: lsp,
    baton: {
      scope_session_id: scope ?? null,
      current_session_status: current ? effectiveStatus(current, ctx.now) : null,
      initiatives: inputs.initiatives ?? [],
      unread_signals: { reader, count },
      integrity_finding_count: state.findings.length,
      integrity_findings: state.findings.slice(-STATUS_FINDINGS_SHOWN).map((f) => ({ seq: f.seq, stream: f.stream, type: f.type, reason: f.reason })),
      held_work_units:
        current === undefined ? [] : heldWorkUnitsView(held, { invocation: ctx.invocation, installDir: ctx.installDir, session: current.session_id }),
    },
  };
}

export interface TasksEnvelope extends Head<'orchestration_tasks'> {
  tasks: WizardTask[];
}

export function tasksEnvelope(state: TasksState, ctx: ViewContext, filters: { state?: TaskState | undefined; sessionId?: string | undefined }): TasksEnvelope {
  const session = filters.sessionId === undefined ? undefined : requireSession(state, filters.sessionId, 'session_id');
  const tasks = tasksInOrder(state).filter(
    (t) => (filters.state === undefined || t.state === filters.state) && (session === undefined || t.session_id === session),
  );
  return { ...head('orchestration_tasks', ctx), tasks: tasks.map(wizardTask) };
}

export interface TaskEnvelope extends Head<'orchestration_task'> {
  task: WizardTask;
  baton: { history: WizardHistoryEntry[]; integrity_findings: { seq: number; type: string; reason: string }[] };
}

export function taskEnvelope(state: TasksState, ctx: ViewContext, rawId: string): TaskEnvelope {
  const id = requireTask(state, rawId);
  const task = state.tasks.get(id)!;
  const stream = `task/${id}`;
  return {
    ...head('orchestration_task', ctx),
    task: wizardTask(task),
    baton: {
      history: task.history.map(historyEntry),
      integrity_findings: state.findings.filter((f) => f.stream === stream).map((f) => ({ seq: f.seq, type: f.type, reason: f.reason })),
    },
  };
}

export interface SessionsEnvelope extends Head<'orchestration_sessions'> {
  sessions: WizardSession[];
}

/** Every session in creation order (start seq). */
export function sessionsEnvelope(state: TasksState, ctx: ViewContext): SessionsEnvelope {
  const sessions = [...state.coordination.sessions.values()].sort((a, b) => a.start_seq - b.start_seq);
  return { ...head('orchestration_sessions', ctx), sessions: sessions.map((s) => wizardSession(s, effectiveStatus(s, ctx.now), ctx.installDir)) };
}

export interface SessionEnvelope extends Head<'orchestration_session'> {
  session: WizardSession;
  tasks: WizardTask[];
  baton: { subagents: WizardSubagent[] };
}

export function sessionEnvelope(state: TasksState, ctx: ViewContext, rawId: string): SessionEnvelope {
  const id = requireSession(state, rawId);
  const s = state.coordination.sessions.get(id)!;
  return {
    ...head('orchestration_session', ctx),
    session: wizardSession(s, effectiveStatus(s, ctx.now), ctx.installDir),
    tasks: tasksInOrder(state)
      .filter((t) => t.session_id === id)
      .map(wizardTask),
    baton: { subagents: [...state.subagents.values()].filter((a) => a.session_id === id).map(wizardSubagent) },
  };
}

export interface SubagentEnvelope extends Head<'orchestration_subagent'> {
  subagent: WizardSubagent;
}

export interface ResumeEnvelope extends Head<'orchestration_resume'> {
  sessionId: string;
  command: string[];
  description: string;
  executed: boolean;
  baton: { kind: string; resume_command: string };
}

export function resumeEnvelope(
  state: TasksState,
  ctx: ViewContext,
  rawSession: string,
  executed: boolean,
  held?: ReadonlyMap<string, readonly HeldWorkUnit[]>,
): ResumeEnvelope {
  const id = requireSession(state, rawSession);
  const lsp = lastStoppingPoint(state, { now: ctx.now, installDir: ctx.installDir, invocation: ctx.invocation, scope: id, held });
  return {
    ...head('orchestration_resume', ctx),
    sessionId: id,
    command: lsp.nextAction.command,
    description: lsp.nextAction.description,
    executed,
    baton: { kind: lsp.nextAction.kind, resume_command: lsp.resumeCommand },
  };
}

export { SessionStatus };
