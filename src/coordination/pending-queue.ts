import { closeSync, constants, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { assertNoLinkBelow, ensureOwnedDir } from '../artifacts/owned-paths.js';
import { randomBytes } from 'node:crypto';
import { SESSION_ID_PATTERN } from '../../events/coordination/identities.js';

/**
 * `.baton/hooks/pending/<session_id>.jsonl` (coordination.md §9.1): delivery references, never
 * copies of signals. A buffer, not truth — draining also reconciles with the log, so losing the
 * file loses nothing. Each entry is one `write()` on an O_APPEND descriptor (atomic for a line this
 * short, which is the per-file lock the spec asks for); taking the queue renames it aside first, so
 * an entry appended meanwhile lands in a fresh file and is never lost.
 */
export interface PendingEntry {
  event: 'signal:received';
  signal_id: string;
  seq: number;
  enqueued_at: string;
}

/**
 * The queue folder (`<workspace>/.baton/hooks/pending`), checked as one of Baton's own: no planted
 * link on the way (owned-paths.ts).
 */
function ownedQueueDir(dir: string, create: boolean): string {
  const workspace = resolve(dir, '..', '..', '..');
  if (create) ensureOwnedDir(workspace, dir, 0o700);
  else assertNoLinkBelow(workspace, dir);
  return dir;
}

function queuePath(dir: string, sessionId: string): string {
  // Session ids are checked against their strict pattern, so none escapes the folder.
  if (!SESSION_ID_PATTERN.test(sessionId)) throw new Error(`not a session id: ${sessionId}`);
  return join(dir, `${sessionId}.jsonl`);
}

export function enqueuePending(dir: string, sessionId: string, refs: readonly { signal_id: string; seq: number }[], now: string): void {
  if (refs.length === 0) return;
  ownedQueueDir(dir, true);
  const lines = refs
    .map((r) => JSON.stringify({ event: 'signal:received', signal_id: r.signal_id, seq: r.seq, enqueued_at: now } satisfies PendingEntry) + '\n')
    .join('');
  const fd = openSync(queuePath(dir, sessionId), constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, lines);
  } finally {
    closeSync(fd);
  }
}

/** Take the whole queue atomically: rename aside, read, remove. Malformed lines are skipped. */
export function takePending(dir: string, sessionId: string): PendingEntry[] {
  const path = queuePath(ownedQueueDir(dir, false), sessionId);
  const aside = `${path}.taking-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const text = readFileSync(aside, 'utf8');
  unlinkSync(aside);
  const out: PendingEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value = JSON.parse(line) as Partial<PendingEntry>;
      if (typeof value.signal_id === 'string' && typeof value.seq === 'number') out.push(value as PendingEntry);
    } catch {
      // a torn or foreign line: the log reconciliation still finds the signal
    }
  }
  return out;
}

export function readPendingLines(dir: string, sessionId: string): string[] {
  try {
    return readFileSync(queuePath(dir, sessionId), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
  } catch {
    return [];
  }
}
