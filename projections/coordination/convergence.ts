import { Intent, SYSTEM_IDENTITY, type Intent as IntentT } from '../../events/coordination/vocabulary.js';
import { coordinationProjection } from './roster.js';
import { inWorkspace, type WorkspaceFilter } from './signals.js';
import type { CoordinationState, SignalRecord } from './state.js';

/** `mem converged` (§8): computed from signals only, never from receipts or read order. */
export const ConvergenceState = { open: 'open', converged: 'converged', rejected: 'rejected' } as const;
export type ConvergenceState = (typeof ConvergenceState)[keyof typeof ConvergenceState];

export interface ConvergenceView {
  v: 1;
  type: 'convergence';
  generated_at: string;
  thread_id: string;
  state: ConvergenceState;
  root_signal_id: string;
  proposal_signal_id: string;
  proposal_author: string;
  required: string[];
  agreed: string[];
  rejected: string[];
  pending: string[];
  other_votes: { identity: string; intent: IntentT; signal_id: string }[];
}

export function threadRecords(state: CoordinationState, thread: string, workspace: WorkspaceFilter): SignalRecord[] {
  return (state.threads.get(thread) ?? []).map((i) => state.signals[i]!).filter((r) => inWorkspace(r, workspace));
}

/** null when the thread has no signal. */
export function convergenceView(state: CoordinationState, now: string, thread: string, workspace: WorkspaceFilter = undefined): ConvergenceView | null {
  const records = threadRecords(state, thread, workspace);
  const root = records[0];
  if (!root) return null;
  const proposal = [...records].reverse().find((r) => r.data.intent === Intent.PROPOSE || r.data.intent === Intent.COUNTER) ?? root;
  const author = proposal.data.sender_identity;
  const required: string[] = [];
  for (const id of [root.data.sender_identity, ...root.data.recipients]) {
    if (id !== author && id !== SYSTEM_IDENTITY && !required.includes(id)) required.push(id);
  }
  // Latest vote per identity after the proposal; votes are listed in the seq order of the vote.
  const votes = new Map<string, SignalRecord>();
  for (const r of records) {
    if (r.seq <= proposal.seq || (r.data.intent !== Intent.AGREE && r.data.intent !== Intent.REJECT)) continue;
    votes.delete(r.data.sender_identity);
    votes.set(r.data.sender_identity, r);
  }
  const ordered = [...votes.values()].sort((a, b) => a.seq - b.seq);
  const agreed = ordered.filter((r) => required.includes(r.data.sender_identity) && r.data.intent === Intent.AGREE).map((r) => r.data.sender_identity);
  const rejected = ordered.filter((r) => required.includes(r.data.sender_identity) && r.data.intent === Intent.REJECT).map((r) => r.data.sender_identity);
  const pending = required.filter((id) => !agreed.includes(id) && !rejected.includes(id));
  const other_votes = ordered
    .filter((r) => !required.includes(r.data.sender_identity))
    .map((r) => ({ identity: r.data.sender_identity, intent: r.data.intent, signal_id: r.data.signal_id }));
  let result: ConvergenceState;
  if (root.data.recipients.length === 0 || required.length === 0) result = ConvergenceState.open;
  else if (rejected.length > 0) result = ConvergenceState.rejected;
  else if (pending.length === 0) result = ConvergenceState.converged;
  else result = ConvergenceState.open;
  return {
    v: 1,
    type: 'convergence',
    generated_at: now,
    thread_id: thread,
    state: result,
    root_signal_id: root.data.signal_id,
    proposal_signal_id: proposal.data.signal_id,
    proposal_author: author,
    required,
    agreed,
    rejected,
    pending,
    other_votes,
  };
}

/** In replay, an unknown thread is an empty `threads` list rather than an error. */
export const convergenceProjection = coordinationProjection('convergence', (state, now, args) => {
  const thread = typeof args['thread'] === 'string' ? args['thread'] : undefined;
  const workspace = typeof args['workspace_id'] === 'string' ? args['workspace_id'] : undefined;
  if (thread !== undefined)
    return convergenceView(state, now, thread, workspace) ?? { v: 1 as const, type: 'convergence', generated_at: now, thread_id: thread, state: null };
  return {
    v: 1 as const,
    type: 'convergences',
    generated_at: now,
    threads: [...state.threads.keys()].map((t) => convergenceView(state, now, t, workspace)).filter((v) => v !== null),
  };
});
