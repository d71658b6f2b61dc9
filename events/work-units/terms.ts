/**
 * The work-unit vocabulary of work-units.md §1, §3 and §6 that needs no zod: ids, enums, orderings
 * and value rules. The fold, the projections and the CLI's read path import it from here;
 * vocabulary.ts re-exports all of it next to the zod schemas built from it.
 */
export { WU_ID_PATTERN, INITIATIVE_ID_PATTERN } from '../coordination/vocabulary.js';

export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** git's ref-name rules (git check-ref-format), applied to a branch name. */
export function isValidBranchName(name: string): boolean {
  if (name.length === 0 || name.length > 250) return false;
  if (name === '@' || name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false;
  if (name.includes('..') || name.includes('//') || name.includes('@{')) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name)) return false;
  return name.split('/').every((part) => part.length > 0 && !part.startsWith('.') && !part.endsWith('.lock'));
}

export const WuType = {
  feature: 'feature',
  bug: 'bug',
  documentation: 'documentation',
  process: 'process',
  tooling: 'tooling',
  chore: 'chore',
  refactor: 'refactor',
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
  todo: 'todo',
  ready: 'ready',
  backlog: 'backlog',
  in_progress: 'in_progress',
  blocked: 'blocked',
  done: 'done',
  completed: 'completed',
  cancelled: 'cancelled',
  abandoned: 'abandoned',
  deferred: 'deferred',
  closed: 'closed',
  superseded: 'superseded',
} as const;
export type YamlStatus = (typeof YamlStatus)[keyof typeof YamlStatus];
export const YAML_STATUSES = Object.values(YamlStatus);
const TERMINAL_YAML = new Set<string>(['done', 'completed', 'cancelled', 'abandoned', 'deferred', 'closed', 'superseded']);
export function isTerminalYamlStatus(status: string): boolean {
  return TERMINAL_YAML.has(status);
}

/** The 13 orchestration states (§6.1), in decision-table order. */
export const OrchestrationState = {
  done: 'done',
  contaminated: 'contaminated',
  blocked: 'blocked',
  awaiting_merge: 'awaiting_merge',
  ready_for_finish: 'ready_for_finish',
  worker_returned: 'worker_returned',
  needs_relaunch: 'needs_relaunch',
  stalled: 'stalled',
  active: 'active',
  claimed: 'claimed',
  handoff_emitted: 'handoff_emitted',
  eligible: 'eligible',
  planned: 'planned',
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

/**
 * Every definition field (§3.1) by its persisted name, in the order of the `DefinitionFields`
 * schema (events/work-units/definition.ts, which checks at compile time that the two name the same
 * fields; test/work-units/settings.test.ts checks the order).
 */
export const DEFINITION_FIELD_NAMES = [
  'initiative',
  'title',
  'description',
  'acceptance',
  'lane',
  'type',
  'priority',
  'dependencies',
  'blocked_by',
  'blocks',
  'code_paths',
  'phase',
  'labels',
  'created',
  'claimed_mode',
  'claimed_branch',
  'claimed_at',
  'worktree_path',
  'blocked_reason',
  'completed_at',
  'status',
] as const;

/** The fields `wu create` sets (work-units.md §3.1), in the order a definition lists them. */
export const CREATE_FIELDS = ['initiative', 'title', 'description', 'acceptance', 'lane', 'type', 'priority', 'dependencies', 'code_paths'] as const;
