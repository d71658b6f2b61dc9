import { z } from 'zod';
import { eventsOn } from '../catalog.js';
import { agentIdentity, CLIENT_TYPES, displayName, END_STATUSES, lane, optionalText, role, sessionId, wuId } from './identities.js';

/** Session events (coordination.md §2), all on stream `session/<session_id>`. */
export const SessionStartedData = z.strictObject({
  session_id: sessionId,
  display_name: displayName,
  agent_identity: agentIdentity.optional(),
  role: role.optional(),
  wu_id: wuId.optional(),
  lane: lane.optional(),
  goal: optionalText(2000).optional(),
  branch: optionalText(250).optional(),
  worktree: optionalText(1000).optional(),
  client_type: z.enum(CLIENT_TYPES).optional(),
  ttl_seconds: z
    .number()
    .int()
    .min(1)
    .max(365 * 24 * 3600),
});
export type SessionStartedData = z.infer<typeof SessionStartedData>;

export const SessionHeartbeatData = z.strictObject({ session_id: sessionId });
export type SessionHeartbeatData = z.infer<typeof SessionHeartbeatData>;

export const SessionEndedData = z.strictObject({ session_id: sessionId, status: z.enum(END_STATUSES) });
export type SessionEndedData = z.infer<typeof SessionEndedData>;

export const SESSION_EVENTS = eventsOn('session', [
  { type: 'session.started', schema: SessionStartedData, description: 'A session began; it reserved a display name from the pool.' },
  { type: 'session.heartbeat', schema: SessionHeartbeatData, description: 'A session says it is still alive.' },
  {
    type: 'session.ended',
    schema: SessionEndedData,
    description: 'A session ended (by itself or by anyone reclaiming its name); its display name is free again.',
  },
]);
