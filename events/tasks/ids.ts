import { z } from 'zod';

/**
 * Task and subagent id rules (tasks.md §2) and the kind token (§1.5). Ids are at most 128
 * characters in all; the prefix alone is not enough — the full pattern is checked.
 */
export const TASK_ID_PATTERN = /^task_[A-Za-z0-9_-]{1,123}$/;
export const SUBAGENT_ID_PATTERN = /^subagent_[A-Za-z0-9_-]{1,119}$/;
export const KIND_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

export const taskId = z.string().regex(TASK_ID_PATTERN, 'must match ^task_[A-Za-z0-9_-]+$ (at most 128 characters)');
export const subagentId = z.string().regex(SUBAGENT_ID_PATTERN, 'must match ^subagent_[A-Za-z0-9_-]+$ (at most 128 characters)');
export const subagentKind = z.string().regex(KIND_PATTERN, 'must match ^[a-z][a-z0-9_]{0,63}$');

/** The wizard's documented subagent kinds (§1.5); other kinds are accepted but leave its enum. */
export const WIZARD_SUBAGENT_KINDS = [
  'framework_detection',
  'integration',
  'taxonomy',
  'instrumentation',
  'chart_creation',
  'dashboard_creation',
  'verification',
  'feature_discovery',
  'mcp_install',
  'unknown',
] as const;
