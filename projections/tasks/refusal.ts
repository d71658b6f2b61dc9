import { Refusal, refuseField } from '../../deciders/refusal.js';

export { Refusal };

export const TaskErrorCode = {
  UNKNOWN_TASK: 'UNKNOWN_TASK',
  UNKNOWN_SESSION: 'UNKNOWN_SESSION',
  UNKNOWN_SUBAGENT: 'UNKNOWN_SUBAGENT',
  SESSION_ENDED: 'SESSION_ENDED',
  SPAWN_FAILED: 'SPAWN_FAILED',
  EMPTY_COMMAND: 'EMPTY_COMMAND',
  INVALID_INPUT: 'INVALID_INPUT',
} as const;

const PATTERNS = {
  task: /^task_[A-Za-z0-9_-]+$/,
  session: /^session_[A-Za-z0-9_-]+$/,
  subagent: /^subagent_[A-Za-z0-9_-]+$/,
} as const;

/** §2: the full pattern, at most 128 characters, checked before anything is read. */
export function checkId(prefix: keyof typeof PATTERNS, raw: string, field?: string): string {
  if (raw.length > 128 || !PATTERNS[prefix].test(raw)) {
    const rule = `Expected ${prefix}_<id>, got '${raw}'`;
    throw field === undefined ? new Refusal(TaskErrorCode.INVALID_INPUT, rule) : refuseField(TaskErrorCode.INVALID_INPUT, field, () => rule);
  }
  return raw;
}

export function taskNotFound(id: string): Refusal {
  return new Refusal(TaskErrorCode.UNKNOWN_TASK, `Task ${id} not found`, { task_id: id });
}
export function sessionNotFound(id: string): Refusal {
  return new Refusal(TaskErrorCode.UNKNOWN_SESSION, `Session ${id} not found`, { session_id: id });
}
export function subagentNotFound(id: string): Refusal {
  return new Refusal(TaskErrorCode.UNKNOWN_SUBAGENT, `Subagent ${id} not found`, { subagent_id: id });
}
