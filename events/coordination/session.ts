import { z } from 'zod';
import { AuditMark } from '../audit-mark.js';
import { eventsOn } from '../catalog.js';
import { agentIdentity, CLIENT_TYPES, displayName, END_STATUSES, isoTime, lane, optionalText, role, sessionId, wuId } from './identities.js';

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

/**
 * A session went idle past its TTL while it held work units: its lease lapsed at `lapsed_at`
 * (`last_seen` + `ttl_seconds`). Recorded by the next command that noticed (its actor), once per
 * lapse: a lapse is the session and its `last_seen`; a session that comes back and lapses again is
 * a new lapse. It changes no liveness rule: a later fact of the session revives it, as before.
 */
export const SessionLapsedData = z.strictObject({
  session_id: sessionId,
  last_seen: isoTime,
  ttl_seconds: SessionStartedData.shape.ttl_seconds,
  lapsed_at: isoTime,
  held_wus: z.array(wuId).min(1).max(10_000),
  /** Recorded by `baton audit --fix`: the finding it settles, and why. */
  audit: AuditMark.optional(),
});
export type SessionLapsedData = z.infer<typeof SessionLapsedData>;

export const SESSION_EVENTS = eventsOn('session', [
  { type: 'session.started', schema: SessionStartedData, description: 'A session began; it reserved a display name from the pool.' },
  { type: 'session.heartbeat', schema: SessionHeartbeatData, description: 'A session says it is still alive.' },
  {
    type: 'session.ended',
    schema: SessionEndedData,
    description: 'A session ended (by itself or by anyone reclaiming its name); its display name is free again.',
  },
  {
    type: 'session.lapsed',
    schema: SessionLapsedData,
    description:
      'A session holding work units went idle past its TTL: its lease lapsed at last_seen + ttl_seconds, and the WUs it held may be taken over. Recorded once per lapse by the next command that noticed.',
  },
]);
