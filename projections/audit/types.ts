import type { ProposedEvent } from '../../deciders/decision.js';

/**
 * What an audit finds (`baton audit`): where the record and the repository disagree. The findings
 * are a pure function of the folded states, the clock and two plain objects of facts the I/O half
 * gathers (src/audit/): what git shows (`RepositoryFacts`) and what the files the log projects say
 * (`DiskFacts`, the probes' own comparisons). Nothing here reads a file or starts a program.
 */
export const Severity = { error: 'error', warn: 'warn', info: 'info' } as const;
export type Severity = (typeof Severity)[keyof typeof Severity];
/** Most severe first: the order of the report. */
export const SEVERITIES: readonly Severity[] = [Severity.error, Severity.warn, Severity.info];

export const SubjectKind = { wu: 'wu', session: 'session', flow: 'flow', signal: 'signal', log: 'log' } as const;
export type SubjectKind = (typeof SubjectKind)[keyof typeof SubjectKind];

/**
 * An event as evidence: where and when it was recorded, by whom, and what it said in short. `at`
 * and `actor` are null only for an event a domain fold refused, which keeps its seq and why.
 */
export interface EventEvidence {
  seq: number;
  at: string | null;
  type: string;
  stream: string;
  actor: string | null;
  summary: string;
}

/** A git object as evidence: a commit (its id), a branch or a worktree (the commit it points at, when it exists). */
export interface GitEvidence {
  kind: 'commit' | 'branch' | 'worktree';
  /** The commit id; null for a branch or worktree that does not exist. */
  id: string | null;
  /** The branch name, the worktree path, or the commit's subject line. */
  name: string;
  detail: string;
}

/** A file as evidence: its content hash on disk (null: absent), and the hash the log implies (null: none). */
export interface FileEvidence {
  path: string;
  sha256: string | null;
  expected_sha256: string | null;
  detail: string;
}

/** How a finding is resolved by hand, rendered as a command line by each surface (src/audit/resolve.ts). */
export type Resolution =
  | { kind: 'takeover_or_release'; wu: string }
  | { kind: 'checkpoint'; wu: string }
  | { kind: 'merge'; branch: string; into: string }
  | { kind: 'signal_holder'; wu: string; holder: string }
  | { kind: 'investigate'; wu: string }
  | { kind: 'audit_fix' }
  | { kind: 'end_session'; session: string }
  | { kind: 'answer_signal'; signal: string }
  | { kind: 'flow_status' }
  | { kind: 'flow_update' }
  | { kind: 'restore_stamp'; wu: string }
  | { kind: 'show_log'; from: number; to: number }
  | { kind: 'configure_integration' };

/** What `baton audit --fix` may append for a finding (deciders/audit.ts turns it into events). */
export type Fix =
  | { kind: 'lapse'; session: string }
  | { kind: 'release'; wu: string }
  /** Record what a probe saw on disk, as the probe would (its event, with the audit's mark added). */
  | { kind: 'observe'; event: ProposedEvent };

export interface Finding {
  /** Stable, `[A-Z][A-Z0-9_]*`: what kind of disagreement (docs/cli.md lists them). */
  code: string;
  severity: Severity;
  subject: { kind: SubjectKind; id: string };
  message: string;
  evidence: { events: EventEvidence[]; git: GitEvidence[]; files: FileEvidence[] };
  resolve: Resolution;
  /** null: no corrective event settles it (`--fix` leaves it to the command of `resolve`). */
  fix: Fix | null;
}

/** One commit as git shows it: parents, committer time (ISO UTC), subject, the paths it changed (none for a merge). */
export interface CommitFact {
  id: string;
  parents: string[];
  at: string;
  subject: string;
  paths: string[];
}

/** A linked or main worktree: its absolute path, its path relative to the workspace (POSIX; null outside it), HEAD and branch. */
export interface WorktreeFact {
  path: string;
  relative: string | null;
  head: string | null;
  branch: string | null;
  prunable: boolean;
}

/** What git shows of the repository around the workspace, gathered in a few processes (src/audit/git-facts.ts). */
export interface RepositoryFacts {
  top_level: string;
  /** The integration branch: its name as configured (or the default), the ref it resolved to and its tip; null ref when it does not exist. */
  integration: { name: string; ref: string | null; commit: string | null };
  /** Local branches: name → tip commit. */
  branches: Record<string, string>;
  worktrees: WorktreeFact[];
  /** Every commit reachable from a branch, a remote-tracking branch or a worktree's HEAD. */
  commits: CommitFact[];
}

/** What the files the log projects say, compared with the log by the probes' own comparisons (src/audit/disk-facts.ts). */
export interface DiskFacts {
  /** The observations the stamp and WU YAML probes would record now (a file says what no event records). */
  observations: ProposedEvent[];
  /** Per WU YAML file the probe would record: the fields that differ from the log. */
  yaml_changes: { path: string; wu_id: string; changed_fields: string[] }[];
  /** Baton's own stamps (projections of `wu.stamped`) that are missing or differ from what the log implies. */
  altered_stamps: { wu_id: string; path: string; sha256: string | null; expected_sha256: string }[];
  /** Flow state files someone else edited: the content on disk differs from Baton's rendering of the log. */
  edited_flow_files: { path: string; sha256: string; rendering_sha256: string }[];
}

export const EMPTY_DISK_FACTS: DiskFacts = { observations: [], yaml_changes: [], altered_stamps: [], edited_flow_files: [] };

/** The audit's windows, in seconds (`audit:` of config.yaml, src/audit/settings.ts). */
export interface AuditWindows {
  /** A claimed WU with no checkpoint for longer is stalled. */
  stall_seconds: number;
  /** A signal that requires an ACK and has none after this long is overdue. */
  ack_seconds: number;
  /** An active flow in one phase for longer is stuck. */
  flow_phase_seconds: number;
}
