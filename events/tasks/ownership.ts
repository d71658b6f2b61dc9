import { z } from 'zod';
import { OwnershipKind } from './ownership-terms.js';
import { prState, text } from './vocabulary.js';

/**
 * Ownership entries (tasks.md §1.6), a discriminated union on `kind`, in normalized form (O2, O3).
 * Identity (Baton): branch = name + remote, worktree = path, pull_request = repo + number, file = path.
 */
export { OwnershipKind } from './ownership-terms.js';

export const BranchOwnership = z.strictObject({ kind: z.literal(OwnershipKind.branch), name: text(250), remote: text(250).optional() });
export const WorktreeOwnership = z.strictObject({ kind: z.literal(OwnershipKind.worktree), path: text(4096), branch: text(250).optional() });
export const PullRequestOwnership = z.strictObject({
  kind: z.literal(OwnershipKind.pull_request),
  number: z.number().int().positive('must be a positive integer'),
  repo: z.string().regex(/^[^/\s]+\/[^/\s]+$/, 'must be owner/name'),
  url: z
    .string()
    .regex(/^https?:\/\/\S+$/, 'must be an http or https URL')
    .max(2048),
  state: prState.optional(),
});
export const FileOwnership = z.strictObject({ kind: z.literal(OwnershipKind.file), path: text(4096) });

export const Ownership = z.discriminatedUnion('kind', [BranchOwnership, WorktreeOwnership, PullRequestOwnership, FileOwnership]);
export type Ownership = z.infer<typeof Ownership>;

export { orderedOwnership, ownershipIdentity, sameOwnership } from './ownership-terms.js';
