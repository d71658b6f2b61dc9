import { SessionStatus } from '../../events/coordination/identities.js';
import { checkId, sessionNotFound, TaskErrorCode, ViewRefusal } from '../../projections/tasks/refusal.js';
import type { TasksState } from '../../projections/tasks/state.js';
import type { SessionRecord } from '../../projections/coordination/state.js';

/** The owning session of a create (C1, C2): the acting session, existing and not ended. */
export function requireActingSession(session: string | undefined): string {
  if (session === undefined) throw new ViewRefusal(TaskErrorCode.INVALID_INPUT, '--session is required (or set BATON_SESSION)', { field: '--session' });
  return checkId('session', session, '--session');
}

export function requireOpenSession(state: TasksState, id: string): SessionRecord {
  const session = state.coordination.sessions.get(id);
  if (!session) throw sessionNotFound(id);
  if (session.stored_status !== SessionStatus.active) {
    throw new ViewRefusal(TaskErrorCode.SESSION_ENDED, `Session ${id} has ended in status '${session.stored_status}' — tasks cannot be added to it.`, {
      session_id: id,
      status: session.stored_status,
    });
  }
  return session;
}
