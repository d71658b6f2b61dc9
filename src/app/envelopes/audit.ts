import { z } from 'zod';
import { AUDIT_CODE_PATTERN } from '../../../events/audit-mark.js';

/** The envelopes of `baton audit` and `baton audit why` (docs/cli.md), each validated before printing. */
const generatedAt = z.iso.datetime();
const seq = z.number().int().min(0);
const severity = z.enum(['error', 'warn', 'info']);

const EventEvidence = z.strictObject({
  seq: z.number().int().min(1),
  at: z.string().nullable(),
  type: z.string(),
  stream: z.string(),
  actor: z.string().nullable(),
  summary: z.string(),
});

export const AuditFinding = z.strictObject({
  /** Stable: what kind of disagreement (docs/cli.md lists every code). */
  code: z.string().regex(AUDIT_CODE_PATTERN),
  severity,
  subject: z.strictObject({ kind: z.enum(['wu', 'session', 'flow', 'signal', 'log']), id: z.string() }),
  message: z.string(),
  evidence: z.strictObject({
    events: z.array(EventEvidence),
    git: z.array(z.strictObject({ kind: z.enum(['commit', 'branch', 'worktree']), id: z.string().nullable(), name: z.string(), detail: z.string() })),
    files: z.array(z.strictObject({ path: z.string(), sha256: z.string().nullable(), expected_sha256: z.string().nullable(), detail: z.string() })),
  }),
  /** The command that resolves it by hand. */
  resolve: z.string(),
  /** `baton audit --fix` appends the corrective event that settles it. */
  fixable: z.boolean(),
});

export const AuditEnvelope = z.strictObject({
  v: z.literal(1),
  type: z.literal('audit'),
  generated_at: generatedAt,
  /** The position audited (its last seq, and the clock the findings were judged at) and the log's head. */
  as_of: z.strictObject({ seq, at: z.string() }),
  head_seq: seq,
  fail_on: z.enum(['warn', 'error']),
  /** No finding at or above `fail_on` (else the exit code is 3). */
  ok: z.boolean(),
  counts: z.strictObject({ error: seq, warn: seq, info: seq }),
  /** What git showed; null outside a git repository (no git finding is made then). */
  repository: z
    .strictObject({
      top_level: z.string(),
      integration: z.strictObject({ name: z.string(), ref: z.string().nullable(), commit: z.string().nullable() }),
      branches: seq,
      worktrees: seq,
      commits: seq,
    })
    .nullable(),
  findings: z.array(AuditFinding),
  /** The events `--fix` appended, each with the finding code it settles (empty without `--fix`). */
  fixed: z.array(z.strictObject({ seq: z.number().int().min(1), type: z.string(), code: z.string(), subject: z.string() })),
  /** Where the time went: folding the log, git, the files, the findings. */
  timings_ms: z.strictObject({ replay: seq, git: seq, disk: seq, findings: seq }),
});

export const AuditWhyEnvelope = z.strictObject({
  v: z.literal(1),
  type: z.literal('audit_why'),
  generated_at: generatedAt,
  wu_id: z.string(),
  head_seq: seq,
  /** The causal chain, in log order: one line per event. */
  chain: z.array(z.strictObject({ seq: z.number().int().min(1), at: z.string(), actor: z.string(), stream: z.string(), type: z.string(), text: z.string() })),
});
