import { refuseField } from '../../deciders/refusal.js';
import { checkId, TaskErrorCode } from '../../projections/tasks/refusal.js';

/** The owning session of a create (C1, C2): the acting session, existing and not ended; its input is `session`. */
export function requireActingSession(session: string | undefined): string {
  if (session === undefined) throw refuseField(TaskErrorCode.INVALID_INPUT, 'session', (name) => `${name} is required (or set BATON_SESSION)`);
  return checkId('session', session, 'session');
}
