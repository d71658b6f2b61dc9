import { compareWuIds } from '../../events/work-units/terms.js';
import { isDone } from './evidence.js';
import type { WorkUnitsState, WuRecord } from './records.js';
import { recordsNotDone } from './lazy-records.js';

/**
 * The work units a session holds: claimed by it in the current window (no release or relaunch
 * since), not done, in progress or blocked. What `status`, `resume` and the session brief name as
 * the work to go on with, with the last checkpoint its worker wrote. Pure: a function of the fold.
 */
export type HeldStatus = 'in_progress' | 'blocked' | 'returned';

export interface HeldWorkUnit {
  wu_id: string;
  title: string;
  lane: string | null;
  /** `returned`: the worker said it is finished (`wu return`), it waits for `wu done`. */
  status: HeldStatus;
  blocked_reason: string | null;
  claim: { seq: number; at: string; mode: string; worktree_path: string | null; branch: string | null };
  last_checkpoint: { seq: number; at: string; note: string; progress: string | null; next_steps: string | null } | null;
  /** The seq of its latest fact of the window (claim, checkpoint, block, unblock, return). */
  last_seq: number;
}

const ORDER: Record<HeldStatus, number> = { in_progress: 0, blocked: 1, returned: 2 };

/** Every session's held WUs, each list in the order to go on with them: in progress (latest activity first), blocked, returned. */
export function heldWorkUnits(state: WorkUnitsState): Map<string, HeldWorkUnit[]> {
  const held = new Map<string, HeldWorkUnit[]>();
  // A done WU is held by no one: only the others' records are read (lazy-records.ts).
  for (const wu of recordsNotDone(state)) {
    const session = wu.claim?.session_id;
    if (session === null || session === undefined) continue;
    const item = heldOf(wu);
    if (item === null) continue;
    const list = held.get(session);
    if (list === undefined) held.set(session, [item]);
    else list.push(item);
  }
  for (const list of held.values()) list.sort((a, b) => ORDER[a.status] - ORDER[b.status] || b.last_seq - a.last_seq || compareWuIds(a.wu_id, b.wu_id));
  return held;
}

function heldOf(wu: WuRecord): HeldWorkUnit | null {
  const claim = wu.claim;
  if (claim === null || !wu.defined || claim.seq < wu.window_start || isDone(wu)) return null;
  const state = wu.lifecycle.state;
  if (state !== 'in_progress' && state !== 'blocked') return null;
  const inWindow = <M extends { seq: number }>(m: M | null): M | null => (m !== null && m.seq >= wu.window_start ? m : null);
  const checkpoint = inWindow(wu.checkpoint);
  const returned = inWindow(wu.returned);
  const last = Math.max(claim.seq, checkpoint?.seq ?? 0, inWindow(wu.blocked)?.seq ?? 0, inWindow(wu.unblock)?.seq ?? 0);
  const status: HeldStatus = state === 'blocked' ? 'blocked' : returned !== null && returned.seq > last ? 'returned' : 'in_progress';
  return {
    wu_id: wu.wu_id,
    title: typeof wu.def.title === 'string' ? wu.def.title : wu.wu_id,
    lane: typeof wu.def.lane === 'string' ? wu.def.lane : null,
    status,
    blocked_reason: status === 'blocked' ? (wu.blocked?.reason ?? null) : null,
    claim: { seq: claim.seq, at: claim.at, mode: claim.mode, worktree_path: claim.worktree_path, branch: claim.branch },
    last_checkpoint:
      checkpoint === null
        ? null
        : { seq: checkpoint.seq, at: checkpoint.at, note: checkpoint.note, progress: checkpoint.progress, next_steps: checkpoint.next_steps },
    last_seq: Math.max(last, returned?.seq ?? 0),
  };
}
