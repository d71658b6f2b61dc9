import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/** Generated ids (coordination.md §2, §5.1): 24 random hex for sessions, lower-case ULIDs for signals and threads. */
const nextUlid = monotonicFactory();

export function newSessionId(): string {
  return `session_${randomBytes(12).toString('hex')}`;
}

export function newSignalId(): string {
  return `sig-${nextUlid().toLowerCase()}`;
}

export function newThreadId(): string {
  return `thread-${nextUlid().toLowerCase()}`;
}
