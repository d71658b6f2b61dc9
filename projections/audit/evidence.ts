import type { Mark } from '../work-units/records.js';
import type { CommitFact, EventEvidence, FileEvidence, Finding, GitEvidence } from './types.js';

/** Evidence builders shared by the audit's findings. */

/** A fold's mark (or anything carrying its fields) as event evidence: only the mark's own fields. */
export function eventOf(mark: Mark | EventEvidence): EventEvidence {
  return { seq: mark.seq, at: mark.at, type: mark.type, stream: mark.stream, actor: mark.actor, summary: mark.summary };
}

/** The marks given, without nulls or repeats, in seq order. */
export function eventsOf(...marks: (Mark | EventEvidence | null | undefined)[]): EventEvidence[] {
  const bySeq = new Map<number, EventEvidence>();
  for (const m of marks) if (m !== null && m !== undefined) bySeq.set(m.seq, eventOf(m));
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

export function commitOf(commit: CommitFact, detail: string): GitEvidence {
  return { kind: 'commit', id: commit.id, name: commit.subject, detail: `${detail}${detail === '' ? '' : '; '}committed ${commit.at}` };
}

export const short = (id: string): string => id.slice(0, 12);

/** A finding with empty evidence lists filled in. */
export function finding(
  f: Omit<Finding, 'evidence' | 'fix'> & { events?: EventEvidence[]; git?: GitEvidence[]; files?: FileEvidence[]; fix?: Finding['fix'] },
): Finding {
  return {
    code: f.code,
    severity: f.severity,
    subject: f.subject,
    message: f.message,
    evidence: { events: f.events ?? [], git: f.git ?? [], files: f.files ?? [] },
    resolve: f.resolve,
    fix: f.fix ?? null,
  };
}

/** Milliseconds between two ISO times (b − a). */
export const elapsedMs = (a: string, b: string): number => Date.parse(b) - Date.parse(a);

export function duration(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 120) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours}h` : `${Math.floor(hours / 24)}d`;
}
