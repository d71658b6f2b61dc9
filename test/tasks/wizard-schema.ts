import { z } from 'zod';

/**
 * The wizard-parity envelopes as a wizard consumer reads them, written from the field tables of
 * tasks.md §1–§10.3 — deliberately NOT imported from the CLI's schemas. Objects are non-strict:
 * unknown keys (Baton's `baton` additions, the `queuedTasks` bucket) are ignored, as the wizard's
 * consumers ignore them; every wizard key must be present with the wizard's type.
 */
const epochMs = z.number().int();
const isoTime = z.iso.datetime();
const TASK_STATES = ['queued', 'running', 'waiting_for_user', 'blocked', 'completed', 'failed', 'cancelled', 'superseded'] as const;
const SUBAGENT_KINDS = [
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

const Ownership = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('branch'), name: z.string().min(1), remote: z.string().optional() }),
  z.object({ kind: z.literal('worktree'), path: z.string().min(1), branch: z.string().optional() }),
  z.object({
    kind: z.literal('pull_request'),
    number: z.number().int().positive(),
    repo: z.string().regex(/^[^/]+\/[^/]+$/),
    url: z.string().regex(/^https?:\/\//),
    state: z.enum(['open', 'closed', 'merged']).optional(),
  }),
  z.object({ kind: z.literal('file'), path: z.string().min(1) }),
]);

const Checkpoint = z.object({ id: z.string().min(1).max(200), kind: z.string().min(1).max(200), summary: z.string().max(2000).optional(), enteredAt: epochMs });

export const WizardTask = z.object({
  id: z.string().regex(/^task_[A-Za-z0-9_-]+$/),
  sessionId: z.string().regex(/^session_[A-Za-z0-9_-]+$/),
  label: z.string().min(1).max(500),
  activeForm: z.string().min(1).max(500).optional(),
  state: z.enum(TASK_STATES),
  ownership: z.array(Ownership),
  subagentKind: z.enum(SUBAGENT_KINDS).nullable(),
  parentTaskId: z
    .string()
    .regex(/^task_[A-Za-z0-9_-]+$/)
    .optional(),
  createdAt: epochMs,
  updatedAt: epochMs,
  startedAt: epochMs.nullable(),
  waitingFor: Checkpoint.optional(),
  blockedReason: z.string().optional(),
  result: z
    .object({
      outcome: z.enum(['completed', 'failed', 'cancelled', 'superseded']),
      summary: z.string().optional(),
      error: z
        .object({
          message: z.string(),
          class: z.enum(['auth', 'network', 'validation', 'permission', 'cancelled', 'internal', 'unknown']),
          code: z.string().optional(),
        })
        .optional(),
      data: z.unknown().optional(),
      finishedAt: epochMs,
    })
    .optional(),
  supersededBy: z
    .string()
    .regex(/^task_[A-Za-z0-9_-]+$/)
    .optional(),
});

export const WizardSession = z.object({
  id: z.string().regex(/^session_[A-Za-z0-9_-]+$/),
  installDir: z.string(),
  createdAt: epochMs,
  updatedAt: epochMs,
  goal: z.string().optional(),
  branch: z.string().optional(),
  worktree: z.string().optional(),
  status: z.enum(['active', 'succeeded', 'failed', 'cancelled', 'abandoned']),
  finishedAt: epochMs.optional(),
});

const head = <T extends string>(type: T) => ({ v: z.literal(1), type: z.literal(type), generated_at: isoTime, generatedAt: isoTime, installDir: z.string() });

export const WizardLastStoppingPoint = z.object({
  generatedAt: epochMs,
  currentSessionId: z.string().nullable(),
  currentGoal: z.string().nullable(),
  currentBranch: z.string().nullable(),
  currentWorktree: z.string().nullable(),
  activeTasks: z.array(WizardTask),
  stoppedTasks: z.array(WizardTask),
  recentlyCompletedTasks: z.array(WizardTask),
  relevantOwnership: z.array(Ownership),
  pendingChoices: z.array(Checkpoint),
  pendingMcpActions: z.array(Checkpoint),
  pendingManualVerifications: z.array(Checkpoint),
  nextAction: z.object({
    kind: z.enum(['resume', 'fix_auth', 'await_user_choice', 'await_mcp_action', 'await_verification', 'inspect_failure', 'none']),
    description: z.string(),
    command: z.array(z.string()),
  }),
  resumeCommand: z.string(),
});

export const WizardStatusEnvelope = z.object({
  ...head('orchestration_status'),
  storePath: z.string(),
  storeExists: z.boolean(),
  lastStoppingPoint: WizardLastStoppingPoint,
});
export const WizardTasksEnvelope = z.object({ ...head('orchestration_tasks'), tasks: z.array(WizardTask) });
export const WizardTaskEnvelope = z.object({ ...head('orchestration_task'), task: WizardTask });
export const WizardSessionsEnvelope = z.object({ ...head('orchestration_sessions'), sessions: z.array(WizardSession) });
export const WizardSessionEnvelope = z.object({ ...head('orchestration_session'), session: WizardSession, tasks: z.array(WizardTask) });
export const WizardResumeEnvelope = z.object({
  ...head('orchestration_resume'),
  sessionId: z.string(),
  command: z.array(z.string()),
  description: z.string(),
  executed: z.boolean(),
});

/** The wizard schema for a parity envelope type, or undefined for Baton-only and non-task envelopes. */
export const WIZARD_ENVELOPES: Readonly<Record<string, z.ZodType>> = {
  orchestration_status: WizardStatusEnvelope,
  orchestration_tasks: WizardTasksEnvelope,
  orchestration_task: WizardTaskEnvelope,
  orchestration_sessions: WizardSessionsEnvelope,
  orchestration_session: WizardSessionEnvelope,
  orchestration_resume: WizardResumeEnvelope,
};
