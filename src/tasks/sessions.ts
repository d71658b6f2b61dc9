import { checkId, TaskErrorCode, Refusal } from '../../projections/tasks/refusal.js';

/** The owning session of a create (C1, C2): the acting session, existing and not ended. */
export function requireActingSession(session: string | undefined): string {
  if (session === undefined) throw new Refusal(TaskErrorCode.INVALID_INPUT, '--session is required (or set BATON_SESSION)', { field: '--session' });
  return checkId('session', session, '--session');
}
