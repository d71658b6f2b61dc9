import { compareWuIds } from '../../events/work-units/terms.js';
import type { CoordinationState } from '../coordination/state.js';
import type { FlowState } from '../flow/flow-state.js';
import type { TaskFinding } from '../tasks/state.js';
import type { WorkUnitsState } from '../work-units/records.js';
import { claimFindings, reservationFindings } from './claim-findings.js';
import { CommitGraph } from './commit-graph.js';
import { doneFindings } from './done-findings.js';
import { finding } from './evidence.js';
import { diskFindings, integrityFindings } from './integrity-findings.js';
import type { AuditLogState } from './log-fold.js';
import { flowFindings, sessionFindings, signalFindings } from './record-findings.js';
import { SEVERITIES, type AuditWindows, type DiskFacts, type Finding, type RepositoryFacts, type Severity } from './types.js';

/**
 * `baton audit`'s findings: a pure function of the folds at the audited position, its clock, and
 * the facts gathered outside the log (git, the files). Deterministic: the same inputs give the same
 * findings in the same order (most severe first, then by code, subject and first evidence).
 */
export interface AuditInput {
  now: string;
  work_units: WorkUnitsState;
  coordination: CoordinationState;
  tasks_findings: readonly TaskFinding[];
  flows: FlowState;
  log: AuditLogState;
  /** null: the workspace is not in a git repository (the git findings are not made). */
  repository: RepositoryFacts | null;
  disk: DiskFacts;
  windows: AuditWindows;
}

export function auditFindings(input: AuditInput): Finding[] {
  const graph = input.repository === null ? null : new CommitGraph(input.repository);
  const claimContext = { fold: input.work_units, log: input.log, now: input.now, windows: input.windows, graph };
  const out: Finding[] = [];
  if (input.repository !== null && input.repository.integration.commit === null) out.push(integrationMissing(input.repository));
  for (const wu of Object.values(input.work_units.wus).sort((a, b) => compareWuIds(a.wu_id, b.wu_id))) {
    out.push(...claimFindings(wu, claimContext));
    if (graph !== null) out.push(...doneFindings(wu, graph));
  }
  out.push(...reservationFindings(claimContext));
  out.push(...sessionFindings(input.work_units, input.coordination, input.log, input.now));
  out.push(...signalFindings(input.coordination, input.now, input.windows));
  out.push(...flowFindings(input.flows, input.log, input.now, input.windows));
  out.push(...diskFindings(input.disk, input.work_units));
  out.push(...integrityFindings(input));
  return sortFindings(out);
}

function integrationMissing(repo: RepositoryFacts): Finding {
  return finding({
    code: 'INTEGRATION_BRANCH_MISSING',
    severity: 'warn',
    subject: { kind: 'log', id: repo.integration.name },
    message: `the integration branch ${repo.integration.name} does not exist in ${repo.top_level}: whether done work is merged cannot be judged`,
    git: [{ kind: 'branch', id: null, name: repo.integration.name, detail: 'does not exist' }],
    resolve: { kind: 'configure_integration' },
  });
}

const rank = (s: Severity): number => SEVERITIES.indexOf(s);
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const firstSeq = (f: Finding): number => f.evidence.events[0]?.seq ?? 0;
const firstGit = (f: Finding): string => f.evidence.git.find((g) => g.kind === 'commit')?.id ?? '';

export function sortFindings(findings: Finding[]): Finding[] {
  return findings.sort(
    (a, b) =>
      rank(a.severity) - rank(b.severity) ||
      cmp(a.code, b.code) ||
      cmp(a.subject.kind, b.subject.kind) ||
      (a.subject.kind === 'wu' && b.subject.kind === 'wu' ? compareWuIds(a.subject.id, b.subject.id) : cmp(a.subject.id, b.subject.id)) ||
      firstSeq(a) - firstSeq(b) ||
      cmp(firstGit(a), firstGit(b)) ||
      cmp(a.message, b.message),
  );
}

/** How many findings of each severity. */
export function countBySeverity(findings: readonly Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warn: 0, info: 0 };
  for (const f of findings) counts[f.severity] += 1;
  return counts;
}

/** Does any finding reach the fail level (`error`: errors only; `warn`: warnings and errors)? */
export function failsAt(findings: readonly Finding[], failOn: Severity): boolean {
  return findings.some((f) => rank(f.severity) <= rank(failOn));
}
