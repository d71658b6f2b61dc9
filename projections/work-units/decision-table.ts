import { ActionType, OrchestrationState } from '../../events/work-units/terms.js';
import type { WuEvidence, WuValues } from './evidence.js';
import type { WuRecord } from './state.js';

/**
 * The total decision table of work-units.md §6.2: rows tried top to bottom, the first whose
 * condition holds gives the state, the action and the reason. Each row names the predicates it
 * reads, so `wu explain` can list exactly what was evaluated up to the deciding row.
 */
export interface Decision {
  rule: number;
  state: OrchestrationState;
  action: ActionType | null;
  reason: string | null;
}

interface Row {
  state: OrchestrationState;
  predicates: readonly (keyof WuEvidence)[];
  holds: (e: WuValues) => boolean;
  action: ActionType | null;
  reason: (e: WuValues, wu: WuRecord, thresholdText: string) => string | null;
}

/** `5h 0m`: whole hours and minutes, floor. */
export function formatDuration(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

export const DECISION_ROWS: readonly Row[] = [
  { state: 'done', predicates: ['DONE'], holds: (e) => e.DONE, action: null, reason: () => null },
  {
    state: 'contaminated',
    predicates: ['overlap'],
    holds: (e) => e.overlap.length > 0,
    action: ActionType.recover_wu,
    reason: (e) => `Uncommitted changes in the root checkout overlap code_paths: ${e.overlap.join(', ')}.`,
  },
  {
    state: 'blocked',
    predicates: ['blocked'],
    holds: (e) => e.blocked,
    action: ActionType.wait,
    reason: (_e, wu) => (wu.blocked?.reason ? `Blocked: ${wu.blocked.reason.replace(/\.$/, '')}.` : 'Blocked.'),
  },
  {
    state: 'awaiting_merge',
    predicates: ['returned', 'mode'],
    holds: (e) => e.returned && e.mode === 'branch-pr',
    action: ActionType.wait,
    reason: () => 'Waiting for PR merge and cleanup.',
  },
  {
    state: 'ready_for_finish',
    predicates: ['returned', 'workspace_present'],
    holds: (e) => e.returned && e.workspace_present,
    action: ActionType.finish_wu,
    reason: (_e, wu) => `Worker returned; run baton wu prep ${wu.wu_id}, then baton wu done ${wu.wu_id}.`,
  },
  {
    state: 'worker_returned',
    predicates: ['returned', 'mode', 'br_present'],
    holds: (e) => e.returned && (e.mode === 'worktree' || e.mode === 'worktree-pr') && e.br_present,
    action: ActionType.wait,
    reason: (e) => `Worker returned; worktree is gone but branch ${e.branch ?? ''} remains. Inspect before advancing.`,
  },
  {
    state: 'needs_relaunch',
    predicates: ['returned'],
    holds: (e) => e.returned,
    action: ActionType.relaunch_wu,
    reason: () => 'Worker returned and its workspace is gone; relaunch.',
  },
  {
    state: 'stalled',
    predicates: ['workspace_present', 'inactive', 'last_activity_at'],
    holds: (e) => e.workspace_present && e.inactive,
    action: ActionType.recover_wu,
    reason: () => null, // filled in by decide(): it needs the clock
  },
  { state: 'active', predicates: ['executing'], holds: (e) => e.executing, action: ActionType.wait, reason: () => 'Work in flight.' },
  { state: 'claimed', predicates: ['claimed'], holds: (e) => e.claimed, action: ActionType.wait, reason: () => 'Claimed; waiting for execution evidence.' },
  {
    state: 'handoff_emitted',
    predicates: ['handed_off'],
    holds: (e) => e.handed_off,
    action: ActionType.wait,
    reason: () => 'Handoff emitted; waiting for pickup.',
  },
  { state: 'eligible', predicates: ['deps_done'], holds: (e) => e.deps_done, action: ActionType.launch_wu, reason: () => 'Ready to launch.' },
  {
    state: 'planned',
    predicates: [],
    holds: () => true,
    action: ActionType.wait,
    reason: (e) => `Waiting for ${e.unmet_deps.join(', ')} to complete.`,
  },
];

export function decide(wu: WuRecord, e: WuValues, now: string, thresholdText: string): Decision {
  for (let i = 0; i < DECISION_ROWS.length; i++) {
    const row = DECISION_ROWS[i]!;
    if (!row.holds(e)) continue;
    let reason = row.reason(e, wu, thresholdText);
    if (row.state === OrchestrationState.stalled) {
      const idle = Date.parse(now) - Date.parse(e.last_activity_at!);
      reason = `No activity for ${formatDuration(idle)} (threshold ${thresholdText}); investigate before relaunching.`;
    }
    return { rule: i + 1, state: row.state, action: row.action, reason };
  }
  throw new Error('unreachable: the decision table is total');
}
