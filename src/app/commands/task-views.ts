import type { z } from 'zod';
import { parseStateFilter } from '../../../projections/tasks/projections.js';
import { checkId } from '../../../projections/tasks/refusal.js';
import { resumeEnvelope, sessionEnvelope, sessionsEnvelope, tasksEnvelope } from '../../../projections/tasks/views.js';
import { heldWorkUnits } from '../../../projections/work-units/held.js';
import { loadTasks, viewContext } from '../../tasks/env.js';
import { foldsWithLapses } from '../../tasks/record-lapses.js';
import { loadTasksAndWorkUnits } from '../../tasks/status-folds.js';
import { refusalsAsErrors } from '../../tasks/refusals.js';
import type { AppContext } from '../context.js';
import { checked } from '../envelopes/checked.js';
import {
  OrchestrationResumeEnvelope,
  OrchestrationSessionsEnvelope,
  OrchestrationSessionViewEnvelope,
  OrchestrationTasksEnvelope,
} from '../envelopes/tasks.js';
import { tasksEnv } from '../tasks-env.js';
import { taskEnvelopeOf, type TaskEnvelope } from './tasks.js';

/** The tasks views (tasks.md §10.1, §10.6): each reads the tasks fold once; only `sessions` appends (the lapses it notices). */
export type TasksListEnvelope = z.output<typeof OrchestrationTasksEnvelope>;
export type SessionsListEnvelope = z.output<typeof OrchestrationSessionsEnvelope>;
export type SessionViewEnvelope = z.output<typeof OrchestrationSessionViewEnvelope>;
export type ResumeEnvelope = z.output<typeof OrchestrationResumeEnvelope>;

/** `task <task>`: one task with its history and integrity findings. */
export async function showTask(app: AppContext, input: { task: string }): Promise<TaskEnvelope> {
  await refusalsAsErrors(() => checkId('task', input.task));
  const env = await tasksEnv(app);
  const { state } = await loadTasks(env);
  return taskEnvelopeOf(env, state, input.task);
}

/** `tasks [state] [session_id]`: tasks in creation order; the session by id or live display name. */
export async function listTasks(app: AppContext, input: { state?: string | undefined; session_id?: string | undefined }): Promise<TasksListEnvelope> {
  const sessionId = input.session_id === undefined ? undefined : await app.sessionIdFor(input.session_id);
  const state = input.state === undefined ? undefined : await refusalsAsErrors(() => parseStateFilter(input.state!));
  if (sessionId !== undefined) await refusalsAsErrors(() => checkId('session', sessionId, 'session_id'));
  const env = await tasksEnv(app);
  const folded = (await loadTasks(env)).state;
  return checked(OrchestrationTasksEnvelope, await refusalsAsErrors(() => tasksEnvelope(folded, viewContext(env), { state, sessionId })));
}

/**
 * `sessions`: every session in creation order, with its effective status; a lapsed one with the
 * WUs it held. The lapses it notices are recorded first (`session.lapsed`, each once).
 */
export async function listSessions(app: AppContext): Promise<SessionsListEnvelope> {
  const env = await tasksEnv(app);
  const { state } = await foldsWithLapses(env);
  return checked(OrchestrationSessionsEnvelope, sessionsEnvelope(state, viewContext(env)));
}

/** `session <session_id>`: the session (by id or live display name), its tasks and subagents. */
export async function showSession(app: AppContext, input: { session_id: string }): Promise<SessionViewEnvelope> {
  const id = await app.sessionIdFor(input.session_id);
  await refusalsAsErrors(() => checkId('session', id));
  const env = await tasksEnv(app);
  const { state } = await loadTasks(env);
  return checked(OrchestrationSessionViewEnvelope, await refusalsAsErrors(() => sessionEnvelope(state, viewContext(env), id)));
}

/** `resume <session_id>`: the session's resume command; `execute` says it is about to be run (runResume). */
export async function resumeSession(app: AppContext, input: { session_id: string; execute?: boolean | undefined }): Promise<ResumeEnvelope> {
  const id = await app.sessionIdFor(input.session_id);
  await refusalsAsErrors(() => checkId('session', id));
  const env = await tasksEnv(app);
  // The work-unit fold too: a session holding a work unit resumes it.
  const { state, workUnits } = await loadTasksAndWorkUnits(env);
  return checked(
    OrchestrationResumeEnvelope,
    await refusalsAsErrors(() => resumeEnvelope(state, viewContext(env), id, input.execute === true, heldWorkUnits(workUnits))),
  );
}

/** Run a resume envelope's command (no shell, stdio inherited): its exit code. */
export async function runResume(envelope: ResumeEnvelope): Promise<number> {
  const { executeResume, ownBaton } = await import('../../tasks/resume-exec.js');
  return executeResume(ownBaton(envelope.command));
}
