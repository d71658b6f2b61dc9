import { z } from 'zod';
import { defineEvent } from '../catalog.js';
import { sessionId } from '../coordination/identities.js';
import { subagentId, subagentKind, taskId } from './ids.js';

/** Subagent events (tasks.md §3, §8), on stream `subagent/<subagent_id>`. */
export const SubagentStartedData = z.strictObject({ subagent_id: subagentId, session_id: sessionId, kind: subagentKind, root_task_id: taskId });
export type SubagentStartedData = z.infer<typeof SubagentStartedData>;

export const SubagentFinishedData = z.strictObject({ subagent_id: subagentId });
export type SubagentFinishedData = z.infer<typeof SubagentFinishedData>;

export const subagentStarted = defineEvent({
  type: 'subagent.started',
  schema: SubagentStartedData,
  streams: ['subagent'],
  description: 'A subagent started under a session, rooted at one of its tasks.',
});

export const subagentFinished = defineEvent({
  type: 'subagent.finished',
  schema: SubagentFinishedData,
  streams: ['subagent'],
  description: 'A subagent finished (once; a second finish is an integrity finding).',
});

export const SUBAGENT_EVENTS = [subagentStarted, subagentFinished] as const;
