import type { Ownership } from './ownership.js';

/**
 * What the fold and the views do with ownership entries (tasks.md §1.6) without zod: their kinds,
 * identity, field order and equality. ownership.ts holds the schemas and re-exports these.
 */
export const OwnershipKind = { branch: 'branch', worktree: 'worktree', pull_request: 'pull_request', file: 'file' } as const;
export type OwnershipKind = (typeof OwnershipKind)[keyof typeof OwnershipKind];

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
