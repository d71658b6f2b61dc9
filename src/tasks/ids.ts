import { randomBytes } from 'node:crypto';

/** New ids (tasks.md §2): the prefix plus 24 lowercase hex characters from a cryptographic source. */
export function newTaskId(): string {
  return `task_${randomBytes(12).toString('hex')}`;
}

export function newSubagentId(): string {
  return `subagent_${randomBytes(12).toString('hex')}`;
}
