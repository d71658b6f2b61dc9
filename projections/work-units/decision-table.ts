import { ActionType, OrchestrationState } from '../../events/work-units/vocabulary.js';
import type { WuEvidence } from './evidence.js';
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
  holds: (e: WuEvidence) => boolean;
  action: ActionType | null;
  reason: (e: WuEvidence, wu: WuRecord, thresholdText: string) => string | null;
}

/** `5h 0m`: whole hours and minutes, floor. */
export function formatDuration(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

export const DECISION_ROWS: readonly Row[] = [
  { state: 'done', predicates: ['DONE'], holds: (e) => e.DONE.value, action: null, reason: () => null },
  {
    state: 'contaminated',
    predicates: ['overlap'],
    holds: (e) => e.overlap.value.length > 0,
    action: ActionType.recover_wu,
    reason: (e) => `Uncommitted changes in the root checkout overlap code_paths: ${e.overlap.value.join(', ')}.`,
  },
  {
    state: 'blocked',
    predicates: ['blocked'],
    holds: (e) => e.blocked.value,
    action: ActionType.wait,
    reason: (_e, wu) => (wu.blocked?.reason ? `Blocked: ${wu.blocked.reason.replace(/\.$/, '')}.` : 'Blocked.'),
  },
  {
    state: 'awaiting_merge',
    predicates: ['returned', 'mode'],
    holds: (e) => e.returned.value && e.mode.value === 'branch-pr',
    action: ActionType.wait,
    reason: () => 'Waiting for PR merge and cleanup.',
  },
  {
    state: 'ready_for_finish',
    predicates: ['returned', 'workspace_present'],
    holds: (e) => e.returned.value && e.workspace_present.value,
    action: ActionType.finish_wu,
    reason: (_e, wu) => `Worker returned; run baton wu prep ${wu.wu_id}, then baton wu done ${wu.wu_id}.`,
  },
  {
    state: 'worker_returned',
    predicates: ['returned', 'mode', 'br_present'],
    holds: (e) => e.returned.value && (e.mode.value === 'worktree' || e.mode.value === 'worktree-pr') && e.br_present.value,
    action: ActionType.wait,
    reason: (e) => `Worker returned; worktree is gone but branch ${e.branch.value ?? ''} remains. Inspect before advancing.`,
  },
  {
    state: 'needs_relaunch',
    predicates: ['returned'],
    holds: (e) => e.returned.value,
    action: ActionType.relaunch_wu,
    reason: () => 'Worker returned and its workspace is gone; relaunch.',
  },
  {
    state: 'stalled',
    predicates: ['workspace_present', 'inactive', 'last_activity_at'],
    holds: (e) => e.workspace_present.value && e.inactive.value,
    action: ActionType.recover_wu,
    reason: () => null, // filled in by decide(): it needs the clock
  },
  { state: 'active', predicates: ['executing'], holds: (e) => e.executing.value, action: ActionType.wait, reason: () => 'Work in flight.' },
  { state: 'claimed', predicates: ['claimed'], holds: (e) => e.claimed.value, action: ActionType.wait, reason: () => 'Claimed; waiting for execution evidence.' },
  {
    state: 'handoff_emitted',
    predicates: ['handed_off'],
    holds: (e) => e.handed_off.value,
    action: ActionType.wait,
    reason: () => 'Handoff emitted; waiting for pickup.',
  },
  { state: 'eligible', predicates: ['deps_done'], holds: (e) => e.deps_done.value, action: ActionType.launch_wu, reason: () => 'Ready to launch.' },
  {
    state: 'planned',
    predicates: [],
    holds: () => true,
    action: ActionType.wait,
    reason: (e) => `Waiting for ${e.unmet_deps.join(', ')} to complete.`,
  },
];

export function decide(wu: WuRecord, e: WuEvidence, now: string, thresholdText: string): Decision {
  for (let i = 0; i < DECISION_ROWS.length; i++) {
    const row = DECISION_ROWS[i]!;
    if (!row.holds(e)) continue;
    let reason = row.reason(e, wu, thresholdText);
    if (row.state === OrchestrationState.stalled) {
      const idle = Date.parse(now) - Date.parse(e.last_activity_at.value!);
      reason = `No activity for ${formatDuration(idle)} (threshold ${thresholdText}); investigate before relaunching.`;
    }
    return { rule: i + 1, state: row.state, action: row.action, reason };
  }
  throw new Error('unreachable: the decision table is total');
}
