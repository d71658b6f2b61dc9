import { z } from 'zod';
import { SessionStatus } from '../../../events/coordination/identities.js';
import { Ownership } from '../../../events/tasks/ownership.js';
import { ERROR_CLASSES, TASK_STATES } from '../../../events/tasks/vocabulary.js';
import { OrchestrationSession } from './coordination.js';

/**
 * The envelopes of tasks.md §10.3, validated before printing: wizard keys (camelCase, epoch ms),
 * Baton's additions under `baton` (snake_case, ISO times).
 */
const iso = z.iso.datetime();
const epochMs = z.number().int();
const state = z.enum(TASK_STATES as [string, ...string[]]);

function envelope<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.strictObject({ v: z.literal(1), type: z.literal(type), generated_at: iso, generatedAt: iso, installDir: z.string(), ...shape });
}

export const WizardCheckpointSchema = z.strictObject({ id: z.string().min(1), kind: z.string().min(1), summary: z.string().optional(), enteredAt: epochMs });

export const WizardTaskSchema = z.strictObject({
  id: z.string().regex(/^task_[A-Za-z0-9_-]+$/),
  sessionId: z.string(),
  label: z.string().min(1).max(500),
  activeForm: z.string().optional(),
  state,
  ownership: z.array(Ownership),
  subagentKind: z.string().nullable(),
  parentTaskId: z.string().optional(),
  createdAt: epochMs,
  updatedAt: epochMs,
  startedAt: epochMs.nullable(),
  waitingFor: WizardCheckpointSchema.optional(),
  blockedReason: z.string().optional(),
  result: z
    .strictObject({
      outcome: state,
      summary: z.string().optional(),
      error: z.strictObject({ message: z.string(), class: z.enum(ERROR_CLASSES as [string, ...string[]]), code: z.string().optional() }).optional(),
      data: z.unknown().optional(),
      finishedAt: epochMs,
    })
    .optional(),
  supersededBy: z.string().optional(),
});

export const WizardSubagentSchema = z.strictObject({
  id: z.string().regex(/^subagent_[A-Za-z0-9_-]+$/),
  sessionId: z.string(),
  kind: z.string(),
  rootTaskId: z.string(),
  createdAt: epochMs,
  finishedAt: epochMs.nullable(),
});

const NextActionSchema = z.strictObject({
  kind: z.enum(['resume', 'fix_auth', 'await_user_choice', 'await_mcp_action', 'await_verification', 'inspect_failure', 'none']),
  description: z.string(),
  command: z.array(z.string()),
});

export const LastStoppingPointSchema = z.strictObject({
  generatedAt: epochMs,
  currentSessionId: z.string().nullable(),
  currentGoal: z.string().nullable(),
  currentBranch: z.string().nullable(),
  currentWorktree: z.string().nullable(),
  activeTasks: z.array(WizardTaskSchema),
  queuedTasks: z.array(WizardTaskSchema),
  stoppedTasks: z.array(WizardTaskSchema),
  recentlyCompletedTasks: z.array(WizardTaskSchema),
  relevantOwnership: z.array(Ownership),
  pendingChoices: z.array(WizardCheckpointSchema),
  pendingMcpActions: z.array(WizardCheckpointSchema),
  pendingManualVerifications: z.array(WizardCheckpointSchema),
  nextAction: NextActionSchema,
  resumeCommand: z.string(),
});

const statuses = z.enum(Object.values(SessionStatus) as [string, ...string[]]);

const seqAt = { seq: z.number().int().min(1), at: iso };

export const HeldWorkUnitSchema = z.strictObject({
  wu_id: z.string(),
  title: z.string(),
  lane: z.string().nullable(),
  status: z.enum(['in_progress', 'blocked', 'returned']),
  blocked_reason: z.string().nullable(),
  claim: z.strictObject({ ...seqAt, mode: z.string(), worktree_path: z.string().nullable(), branch: z.string().nullable() }),
  last_checkpoint: z.strictObject({ ...seqAt, note: z.string(), progress: z.string().nullable(), next_steps: z.string().nullable() }).nullable(),
  commands: z.array(z.strictObject({ command: z.string(), why: z.string() })),
});

export const OrchestrationStatusEnvelope = envelope('orchestration_status', {
  storePath: z.string(),
  storeExists: z.boolean(),
  lastStoppingPoint: LastStoppingPointSchema,
  baton: z.strictObject({
    scope_session_id: z.string().nullable(),
    current_session_status: statuses.nullable(),
    initiatives: z.array(
      z.strictObject({
        initiative: z.string(),
        title: z.string().nullable(),
        blocked_by_integrity: z.boolean(),
        next_safe_actions: z.array(z.record(z.string(), z.unknown())),
      }),
    ),
    unread_signals: z.strictObject({ reader: z.string().nullable(), count: z.number().int().min(0) }),
    integrity_finding_count: z.number().int().min(0),
    /** The most recent integrity findings (at most 20, oldest first): events the fold refused, with why. */
    integrity_findings: z.array(z.strictObject({ seq: z.number().int().min(1), stream: z.string(), type: z.string(), reason: z.string() })),
    /** The work units the current session holds, in the order to go on with them: where each stopped and the commands to go on. */
    held_work_units: z.array(HeldWorkUnitSchema),
  }),
});

export const OrchestrationTasksEnvelope = envelope('orchestration_tasks', { tasks: z.array(WizardTaskSchema) });

const HistoryEntrySchema = z.strictObject({
  seq: z.number().int().min(1),
  at: iso,
  type: z.enum(['created', 'transitioned', 'ownership_added']),
  actor: z.string(),
  from: state.optional(),
  to: state.optional(),
  reason: z.string().optional(),
  ownership: Ownership.optional(),
});

export const OrchestrationTaskEnvelope = envelope('orchestration_task', {
  task: WizardTaskSchema,
  baton: z.strictObject({
    history: z.array(HistoryEntrySchema),
    integrity_findings: z.array(z.strictObject({ seq: z.number().int().min(1), type: z.string(), reason: z.string() })),
  }),
});

export const OrchestrationSessionsEnvelope = envelope('orchestration_sessions', { sessions: z.array(OrchestrationSession) });

export const OrchestrationSessionViewEnvelope = envelope('orchestration_session', {
  session: OrchestrationSession,
  tasks: z.array(WizardTaskSchema),
  baton: z.strictObject({ subagents: z.array(WizardSubagentSchema) }),
});

export const OrchestrationResumeEnvelope = envelope('orchestration_resume', {
  sessionId: z.string(),
  command: z.array(z.string()),
  description: z.string(),
  executed: z.boolean(),
  baton: z.strictObject({ kind: z.string(), resume_command: z.string() }),
});

export const OrchestrationSubagentEnvelope = envelope('orchestration_subagent', { subagent: WizardSubagentSchema });
