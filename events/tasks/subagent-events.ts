import { z } from 'zod';
import { eventsOn } from '../catalog.js';
import { sessionId } from '../coordination/identities.js';
import { subagentId, subagentKind, taskId } from './ids.js';

/** Subagent events (tasks.md §3, §8), on stream `subagent/<subagent_id>`. */
export const SubagentStartedData = z.strictObject({ subagent_id: subagentId, session_id: sessionId, kind: subagentKind, root_task_id: taskId });
export type SubagentStartedData = z.infer<typeof SubagentStartedData>;

export const SubagentFinishedData = z.strictObject({ subagent_id: subagentId });
export type SubagentFinishedData = z.infer<typeof SubagentFinishedData>;

export const SUBAGENT_EVENTS = eventsOn('subagent', [
  { type: 'subagent.started', schema: SubagentStartedData, description: 'A subagent started under a session, rooted at one of its tasks.' },
  { type: 'subagent.finished', schema: SubagentFinishedData, description: 'A subagent finished (once; a second finish is an integrity finding).' },
]);
