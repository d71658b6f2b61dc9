import { z } from 'zod';

/** The envelope of `baton guard` and the MCP `check_paths` tool: who holds each path. */
const Holder = z.strictObject({
  /** The holding session, or null for a claim an agent identity made without one. */
  session: z.string().nullable(),
  identity: z.string().nullable(),
  last_seen: z.string(),
  lease_until: z.string(),
});

const PathReservation = z.strictObject({
  wu_id: z.string(),
  /** The code path or glob that reserves the path. */
  glob: z.string(),
  /** Held by the one asking (the same rule as acting on the claim). */
  mine: z.boolean(),
  holder: Holder,
});

export const PathGuardEnvelope = z.strictObject({
  v: z.literal(1),
  type: z.literal('path_guard'),
  generated_at: z.iso.datetime(),
  /** Who asked: the acting session and agent identity (either may be null). */
  acting: z.strictObject({ session: z.string().nullable(), identity: z.string().nullable() }),
  /** No path held by another live holder (or the check was skipped). */
  ok: z.boolean(),
  /** `BATON_GUARD=off` skipped the staged check; the skip was recorded (guard.skipped). */
  skipped: z.boolean(),
  paths: z.array(
    z.strictObject({
      path: z.string(),
      /** Repository-relative; null outside the workspace. */
      repo_path: z.string().nullable(),
      status: z.enum(['free', 'mine', 'held']),
      reservations: z.array(PathReservation),
    }),
  ),
  /** The paths held by another live holder. */
  held: z.array(z.string()),
});
export type PathGuardEnvelope = z.output<typeof PathGuardEnvelope>;
