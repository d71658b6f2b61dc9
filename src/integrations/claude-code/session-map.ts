import { createHash } from 'node:crypto';
import { SessionStatus } from '../../../events/coordination/vocabulary.js';
import type { CoordinationState, SessionRecord } from '../../../projections/coordination/state.js';

/**
 * Claude Code's `session_id` → the Baton session acting for it, with no table to keep: the Baton id
 * is derived from the Claude id, so every hook of one Claude session (startup, resume, compact, each
 * tool call) names the same Baton session. Once that session has ended (SessionEnd), a later resume
 * of the same Claude session starts generation 1, and so on: never two live sessions for one Claude
 * session, never an ended one revived.
 */
export function batonSessionIdFor(claudeSessionId: string, generation: number): string {
  const digest = createHash('sha256').update(`claude-code\u0000${claudeSessionId}\u0000${generation}`).digest('hex');
  return `session_${digest.slice(0, 24)}`;
}

export interface MappedSession {
  session_id: string;
  /** The fold's record, or undefined when that session has not been started yet. */
  record: SessionRecord | undefined;
}

/** The first generation whose session has not ended (`ended` answers from whichever fold the caller read): the live one, or the one to start. */
export function openGeneration(claudeSessionId: string, ended: (sessionId: string) => boolean): string {
  for (let generation = 0; ; generation++) {
    const id = batonSessionIdFor(claudeSessionId, generation);
    if (!ended(id)) return id;
  }
}

/** The Baton session of a Claude session in the coordination fold, with its record. */
export function mappedSession(state: CoordinationState, claudeSessionId: string): MappedSession {
  const ended = (id: string): boolean => {
    const record = state.sessions.get(id);
    return record !== undefined && record.stored_status !== SessionStatus.active;
  };
  const id = openGeneration(claudeSessionId, ended);
  return { session_id: id, record: state.sessions.get(id) };
}
