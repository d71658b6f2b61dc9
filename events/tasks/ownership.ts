import { z } from 'zod';
import { prState, text } from './vocabulary.js';

/**
 * Ownership entries (tasks.md §1.6), a discriminated union on `kind`, in normalized form (O2, O3).
 * Identity (Baton): branch = name + remote, worktree = path, pull_request = repo + number, file = path.
 */
export const OwnershipKind = { branch: 'branch', worktree: 'worktree', pull_request: 'pull_request', file: 'file' } as const;
export type OwnershipKind = (typeof OwnershipKind)[keyof typeof OwnershipKind];

export const BranchOwnership = z.strictObject({ kind: z.literal(OwnershipKind.branch), name: text(250), remote: text(250).optional() });
export const WorktreeOwnership = z.strictObject({ kind: z.literal(OwnershipKind.worktree), path: text(4096), branch: text(250).optional() });
export const PullRequestOwnership = z.strictObject({
  kind: z.literal(OwnershipKind.pull_request),
  number: z.number().int().positive('must be a positive integer'),
  repo: z.string().regex(/^[^/\s]+\/[^/\s]+$/, 'must be owner/name'),
  url: z.string().regex(/^https?:\/\/\S+$/, 'must be an http or https URL').max(2048),
  state: prState.optional(),
});
export const FileOwnership = z.strictObject({ kind: z.literal(OwnershipKind.file), path: text(4096) });

export const Ownership = z.discriminatedUnion('kind', [BranchOwnership, WorktreeOwnership, PullRequestOwnership, FileOwnership]);
export type Ownership = z.infer<typeof Ownership>;

/** The identity of an entry: two entries with the same identity are the same thing owned. */
export function ownershipIdentity(o: Ownership): string {
  switch (o.kind) {
    case OwnershipKind.branch:
      return JSON.stringify([o.kind, o.name, o.remote ?? null]);
    case OwnershipKind.worktree:
      return JSON.stringify([o.kind, o.path]);
    case OwnershipKind.pull_request:
      return JSON.stringify([o.kind, o.repo, o.number]);
    case OwnershipKind.file:
      return JSON.stringify([o.kind, o.path]);
  }
}

/** The entry with `kind` first and the fields in §1.6 order (the wizard's key order). */
export function orderedOwnership(o: Ownership): Ownership {
  switch (o.kind) {
    case OwnershipKind.branch:
      return { kind: o.kind, name: o.name, ...(o.remote !== undefined ? { remote: o.remote } : {}) };
    case OwnershipKind.worktree:
      return { kind: o.kind, path: o.path, ...(o.branch !== undefined ? { branch: o.branch } : {}) };
    case OwnershipKind.pull_request:
      return { kind: o.kind, number: o.number, repo: o.repo, url: o.url, ...(o.state !== undefined ? { state: o.state } : {}) };
    case OwnershipKind.file:
      return { kind: o.kind, path: o.path };
  }
}

/** Same kind and same field values (key order ignored). */
export function sameOwnership(a: Ownership, b: Ownership): boolean {
  return JSON.stringify(orderedOwnership(a)) === JSON.stringify(orderedOwnership(b));
}
