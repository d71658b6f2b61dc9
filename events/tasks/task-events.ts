import { z } from 'zod';
import { eventsOn } from '../catalog.js';
import { sessionId } from '../coordination/identities.js';
import { subagentKind, taskId } from './ids.js';
import { Ownership } from './ownership.js';
import { errorClass, taskState, text } from './vocabulary.js';

/**
 * Task events (tasks.md §3), all on stream `task/<task_id>`. `task.created.state` accepts every
 * state so a raw append of a terminal create reaches the fold, which reports it as an integrity
 * finding (§11.2); the CLI only ever creates `queued` or `running`.
 */
export const TaskCreatedData = z.strictObject({
  task_id: taskId,
  session_id: sessionId,
  label: text(500),
  state: taskState,
  active_form: text(500).optional(),
  parent_task_id: taskId.optional(),
  subagent_kind: subagentKind.optional(),
});
export type TaskCreatedData = z.infer<typeof TaskCreatedData>;

export const CheckpointData = z.strictObject({ id: text(200), kind: text(200), summary: text(2000).optional() });
export type CheckpointData = z.infer<typeof CheckpointData>;

export const ResultData = z.strictObject({
  outcome: taskState,
  summary: text(2000).optional(),
  error: z.strictObject({ class: errorClass, message: text(2000) }).optional(),
});
export type ResultData = z.infer<typeof ResultData>;

export const TaskTransitionedData = z.strictObject({
  task_id: taskId,
  from: taskState,
  to: taskState,
  reason: text(2000).optional(),
  checkpoint: CheckpointData.optional(),
  superseded_by: taskId.optional(),
  result: ResultData.optional(),
});
export type TaskTransitionedData = z.infer<typeof TaskTransitionedData>;

export const TaskOwnershipAddedData = z.strictObject({ task_id: taskId, ownership: Ownership });
export type TaskOwnershipAddedData = z.infer<typeof TaskOwnershipAddedData>;

export const TASK_LIFECYCLE_EVENTS = eventsOn('task', [
  { type: 'task.created', schema: TaskCreatedData, description: 'A task was created in a session, queued or running.' },
  {
    type: 'task.transitioned',
    schema: TaskTransitionedData,
    description: 'A task moved from the state the command saw to another (one of the 18 legal moves).',
  },
  {
    type: 'task.ownership_added',
    schema: TaskOwnershipAddedData,
    description: 'A task claimed a branch, worktree, pull request or file (or updated one it owns).',
  },
]);
