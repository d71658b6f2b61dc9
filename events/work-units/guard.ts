import { z } from 'zod';
import { eventsOn } from '../catalog.js';
import { sessionId } from '../coordination/identities.js';
import { wuId } from './vocabulary.js';

/**
 * File reservations: a live claim reserves its WU's code paths (and its `--paths`) for its holder,
 * and the guards refuse a write or a commit to them by anyone else. Skipping a guard is a fact.
 */
const repoPath = z.string().min(1).max(4096);

/** A reservation the skipped check would have enforced: the path, the WU that reserves it, its holder. */
export const OverriddenReservation = z.strictObject({
  path: repoPath,
  wu_id: wuId,
  /** The holding session, or the agent identity of a claim made without one. */
  holder: z.string().min(1).max(200),
});

export const GuardSkippedData = z.strictObject({
  /** The check skipped: `staged`, the pre-commit hook's (`baton guard --staged`). */
  check: z.enum(['staged']),
  /** The session that skipped it, when one acted. */
  session_id: sessionId.nullable(),
  /** How it was skipped: the environment variable `BATON_GUARD=off`. */
  via: z.enum(['BATON_GUARD=off']),
  /** How many paths the check would have looked at. */
  paths: z.number().int().min(0),
  /** The reservations of other live holders it would have refused (empty: it would have passed). */
  overridden: z.array(OverriddenReservation).max(1000),
});
export type GuardSkippedData = z.infer<typeof GuardSkippedData>;

export const GUARD_EVENTS = eventsOn('workspace', [
  {
    type: 'guard.skipped',
    schema: GuardSkippedData,
    description: "A file-reservation guard was skipped (BATON_GUARD=off on the pre-commit hook's baton guard --staged), with what it would have refused.",
  },
]);
