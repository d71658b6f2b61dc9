import { z } from 'zod';
import { CONTROL_CHARS, initiativeId, wuId } from '../coordination/identities.js';

/**
 * The work-unit vocabulary of work-units.md §1, §3 and §6: ids, enums and value rules shared by the
 * event schemas, the CLI flags, the YAML import and the projections.
 */
export { wuId, initiativeId, WU_ID_PATTERN, INITIATIVE_ID_PATTERN } from '../coordination/identities.js';

export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const initiativeSlug = z.string().regex(SLUG_PATTERN, 'must match ^[a-z0-9][a-z0-9-]{0,63}$');
/** A WU's `initiative` field: an INIT id or a slug. */
export const initiativeRef = z.union([initiativeId, initiativeSlug], 'must be an INIT id (^INIT-[0-9]{1,9}$) or a slug (^[a-z0-9][a-z0-9-]{0,63}$)');

export const laneName = z
  .string()
  .refine((s) => s.trim().length >= 1 && s.trim().length <= 100, 'must be 1–100 characters after trimming')
  .refine((s) => !CONTROL_CHARS.test(s), 'must not contain control characters')
  .refine((s) => !s.includes(','), 'must not contain a comma');

/** Workspace-relative POSIX path or glob: no leading `/`, no `..` segment, no backslash, no NUL. */
export const codePath = z
  .string()
  .min(1, 'must not be empty')
  .max(300, 'must be at most 300 characters')
  .refine((s) => !s.startsWith('/'), 'must be workspace-relative (no leading /)')
  .refine((s) => !s.split('/').includes('..'), 'must not have a .. segment')
  .refine((s) => !s.includes('\\'), 'must not contain a backslash')
  .refine((s) => !s.includes('\0'), 'must not contain NUL');

export const worktreePath = z
  .string()
  .min(1, 'must not be empty')
  .max(1000, 'must be at most 1,000 characters')
  .refine((s) => !s.includes('\0') && !CONTROL_CHARS.test(s), 'must not contain control characters');

/** git's ref-name rules (git check-ref-format), applied to a branch name. */
export function isValidBranchName(name: string): boolean {
  if (name.length === 0 || name.length > 250) return false;
  if (name === '@' || name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false;
  if (name.includes('..') || name.includes('//') || name.includes('@{')) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name)) return false;
  return name.split('/').every((part) => part.length > 0 && !part.startsWith('.') && !part.endsWith('.lock'));
}
export const branchName = z.string().refine(isValidBranchName, "must be a valid git branch name (git's ref-name rules)");

export const WuType = {
  feature: 'feature', bug: 'bug', documentation: 'documentation', process: 'process', tooling: 'tooling', chore: 'chore', refactor: 'refactor',
} as const;
export type WuType = (typeof WuType)[keyof typeof WuType];
export const WU_TYPES = Object.values(WuType);

export const Priority = { P0: 'P0', P1: 'P1', P2: 'P2', P3: 'P3' } as const;
export type Priority = (typeof Priority)[keyof typeof Priority];
export const PRIORITIES = Object.values(Priority);

export const ClaimedMode = { worktree: 'worktree', worktree_pr: 'worktree-pr', branch_only: 'branch-only', branch_pr: 'branch-pr' } as const;
export type ClaimedMode = (typeof ClaimedMode)[keyof typeof ClaimedMode];
export const CLAIMED_MODES = Object.values(ClaimedMode);
export function isWorktreeMode(mode: ClaimedMode): boolean {
  return mode === ClaimedMode.worktree || mode === ClaimedMode.worktree_pr;
}

/** LumenFlow's 12 YAML statuses (§3.4). */
export const YamlStatus = {
  todo: 'todo', ready: 'ready', backlog: 'backlog',
  in_progress: 'in_progress', blocked: 'blocked',
  done: 'done', completed: 'completed', cancelled: 'cancelled', abandoned: 'abandoned', deferred: 'deferred', closed: 'closed', superseded: 'superseded',
} as const;
export type YamlStatus = (typeof YamlStatus)[keyof typeof YamlStatus];
export const YAML_STATUSES = Object.values(YamlStatus);
const TERMINAL_YAML = new Set<string>(['done', 'completed', 'cancelled', 'abandoned', 'deferred', 'closed', 'superseded']);
export function isTerminalYamlStatus(status: string): boolean {
  return TERMINAL_YAML.has(status);
}

/** The 13 orchestration states (§6.1), in decision-table order. */
export const OrchestrationState = {
  done: 'done', contaminated: 'contaminated', blocked: 'blocked', awaiting_merge: 'awaiting_merge', ready_for_finish: 'ready_for_finish',
  worker_returned: 'worker_returned', needs_relaunch: 'needs_relaunch', stalled: 'stalled', active: 'active', claimed: 'claimed',
  handoff_emitted: 'handoff_emitted', eligible: 'eligible', planned: 'planned',
} as const;
export type OrchestrationState = (typeof OrchestrationState)[keyof typeof OrchestrationState];
export const ORCHESTRATION_STATES = Object.values(OrchestrationState);

export const ActionType = { recover_wu: 'recover_wu', finish_wu: 'finish_wu', relaunch_wu: 'relaunch_wu', launch_wu: 'launch_wu', wait: 'wait' } as const;
export type ActionType = (typeof ActionType)[keyof typeof ActionType];
export const ACTION_TYPES = Object.values(ActionType);

export const HandoffFormat = { markdown: 'markdown', xml: 'xml' } as const;
export type HandoffFormat = (typeof HandoffFormat)[keyof typeof HandoffFormat];
export const HANDOFF_FORMATS = Object.values(HandoffFormat);

/** The numeric sort key of a WU id, ties broken by the text (§1). */
export function compareWuIds(a: string, b: string): number {
  const na = Number(a.slice(3));
  const nb = Number(b.slice(3));
  if (na !== nb) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Free text with a bound: trimmed non-empty, no control characters other than newline and tab. */
export const text = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    // eslint-disable-next-line no-control-regex
    .refine((s) => !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(s), 'must not contain control characters');
export const requiredText = (max: number) => text(max).refine((s) => s.trim().length > 0, 'must not be empty after trimming');
