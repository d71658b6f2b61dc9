import { z } from 'zod';

/** The JSON envelopes the foundation's commands print, each validated before printing. */
const generatedAt = z.iso.datetime();

/** Every envelope starts `{ "v": 1, "type": …, "generated_at": … }`, in that order. */
function envelope<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.strictObject({ v: z.literal(1), type: z.literal(type), generated_at: generatedAt, ...shape });
}
const hash = z.string().regex(/^[0-9a-f]{64}$/);

export const WorkspaceEnvelope = envelope('workspace', {
  dir: z.string(),
  created: z.boolean(),
  /** `.baton/` in the workspace's `.gitignore`: added now (`--gitignore`), already there, or not there. */
  gitignore: z.enum(['added', 'already_ignored', 'not_ignored']),
  /** Commands a new user runs next. */
  next_steps: z.array(z.strictObject({ command: z.string(), why: z.string() })),
});

export const AppendedEnvelope = envelope('appended', {
  events: z.array(z.strictObject({ seq: z.number().int().min(1), id: z.string(), type: z.string(), stream: z.string(), hash })),
  deduplicated: z.boolean(),
});

/**
 * `log append --events` without `--each`: one summary for the whole file instead of an `appended`
 * envelope per call listing every event. Its own type, so a reader expecting `events[]` is never
 * handed another shape under the same name. `head_hash` is the hash of the event at `last_seq`.
 */
export const AppendSummaryEnvelope = envelope('append_summary', {
  /** Events stored by (or, when deduplicated, already stored for) the calls that landed. */
  count: z.number().int().min(1),
  /** Append calls that landed: one per line, or 1 with `--batch`. */
  calls: z.number().int().min(1),
  first_seq: z.number().int().min(1),
  last_seq: z.number().int().min(1),
  head_hash: hash,
  /** How many of `count` an idempotency key had already stored (nothing new was written for them). */
  deduplicated: z.number().int().min(0),
});

const ANCHOR_REF = z.literal('refs/baton/anchors');
const gitId = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/);

/** git's verdict on a signed anchor (what `git verify-commit` decides); `bad` and `revoked` fail `log verify`. */
const AnchorSignature = z.strictObject({
  status: z.enum(['good', 'untrusted', 'bad', 'expired', 'revoked', 'unverifiable']),
  key: z.string().optional(),
  signer: z.string().optional(),
  /** Why git could not check it (e.g. no gpg.ssh.allowedSignersFile). */
  detail: z.string().optional(),
});

/**
 * One anchor of this workspace, checked: `ok` (the event at `seq` still has `hash`), `truncated`
 * (the log ends before `seq`), `rewritten` (the event at `seq` has another hash, `found_hash`),
 * `not_checked` (the log itself is not valid, so no event of it is read).
 */
const CheckedAnchor = z.strictObject({
  commit: gitId,
  seq: z.number().int().min(1),
  hash,
  anchored_at: z.string(),
  status: z.enum(['ok', 'truncated', 'rewritten', 'not_checked']),
  found_hash: hash.optional(),
  signature: AnchorSignature.nullable(),
});

export const LogAnchorsReport = z.strictObject({
  /** No anchor disagrees with the log, none has a bad signature, and the chain holds only anchors. */
  ok: z.boolean(),
  /** The git repository's top level; null when the workspace is in none (nothing to check). */
  repository: z.string().nullable(),
  ref: ANCHOR_REF,
  /** This workspace as anchors name it (relative to the top level); null outside a repository. */
  workspace: z.string().nullable(),
  /** Anchors of this workspace in the chain (each is in `checked`, newest first). */
  found: z.number().int().min(0),
  /** Anchors of other workspaces of the same repository (not checked against this log). */
  other_workspaces: z.number().int().min(0),
  checked: z.array(CheckedAnchor),
  /** Commits in the chain that are no anchor (a rewritten or forged chain): each fails `log verify`. */
  malformed: z.array(z.strictObject({ commit: gitId, problem: z.string() })),
});

/** `baton log anchor`: the head recorded as a commit on `refs/baton/anchors`, or why nothing was written. */
export const LogAnchorEnvelope = envelope('log_anchor', {
  anchored: z.boolean(),
  /** `anchored`: a new anchor commit; `already_anchored`: the latest anchor of this workspace has this head; `empty_log`: nothing to anchor. */
  outcome: z.enum(['anchored', 'already_anchored', 'empty_log']),
  seq: z.number().int().min(0),
  hash,
  /** The anchor's time: now, or the existing anchor's. */
  anchored_at: z.string(),
  /** The anchor commit (the existing one when already anchored); null for an empty log. */
  commit: gitId.nullable(),
  /** The anchor before it on the ref; null for the first. */
  parent: gitId.nullable(),
  signed: z.boolean(),
  ref: ANCHOR_REF,
  repository: z.string(),
  workspace: z.string(),
  store: z.strictObject({ kind: z.string(), id: z.string().optional() }),
});

export const LogVerificationEnvelope = envelope('log_verification', {
  ok: z.boolean(),
  head_seq: z.number().int().min(0),
  checked: z.number().int().min(0),
  first_bad: z
    .strictObject({
      seq: z.number().int(),
      offset: z.number().int(),
      segment: z.string().optional(),
      reason: z.string(),
      /** The bad bytes are the uncommitted tail: settled by `baton log repair` or the next append. */
      tail: z.enum(['unterminated_event', 'torn']).optional(),
    })
    .nullable(),
  /** When not ok: how to get a sound log back (the intact prefix, exported and imported into a fresh workspace). */
  recovery: z.strictObject({ intact_to: z.number().int().min(0), steps: z.array(z.string()).min(1) }).optional(),
  /** The log against the heads anchored in the repository's `refs/baton/anchors` (`baton log anchor`). */
  anchors: LogAnchorsReport,
});

/** `baton log repair`: what was done about the bytes after the last complete event. */
export const LogRepairEnvelope = envelope('log_repair', {
  /** `none`: the log ended with a complete event; `repaired`: a whole last event's newline restored; `quarantined`: a torn write moved aside. */
  action: z.enum(['none', 'repaired', 'quarantined']),
  /** The data of the `log.repaired` or `log.recovered` event recorded, when something was done. */
  record: z.record(z.string(), z.unknown()).nullable(),
  head_seq: z.number().int().min(0),
});

export const LogStatsEnvelope = envelope('log_stats', {
  head_seq: z.number().int().min(0),
  head_hash: hash,
  events: z.number().int().min(0),
  streams: z.number().int().min(0),
  segments: z.number().int().min(0),
  bytes: z.number().int().min(0),
  by_type: z.record(z.string(), z.number().int().min(0)),
});

export const LogExportedEnvelope = envelope('log_exported', {
  events: z.number().int().min(0),
  head_seq: z.number().int().min(0),
  head_hash: hash,
});

export const LogImportedEnvelope = envelope('log_imported', {
  events: z.number().int().min(0),
  head_seq: z.number().int().min(0),
  head_hash: hash,
});

/** A view printed by `replay`: any projection's envelope, which always carries these fields. */
export const ViewEnvelope = z.looseObject({ v: z.literal(1), type: z.string().min(1), generated_at: generatedAt });
