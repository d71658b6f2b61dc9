import type { CoordinationState } from '../coordination/state.js';
import type { FlowState } from '../flow/flow-state.js';
import { ownValue } from '../own-keys.js';
import type { TaskFinding } from '../tasks/state.js';
import type { WorkUnitsState } from '../work-units/records.js';
import { stampYamlFindings } from '../work-units/stamp-consistency.js';
import { eventsOf, finding } from './evidence.js';
import type { AuditLogState } from './log-fold.js';
import type { DiskFacts, Finding } from './types.js';

/**
 * The log's own integrity as the read views list it (events the catalog refused, facts a domain
 * fold refused, the store's recoveries and repairs), and the files the log projects that say what
 * no event records (the probes' comparisons, gathered by src/audit/disk-facts.ts).
 */
export interface IntegrityInput {
  log: AuditLogState;
  work_units: WorkUnitsState;
  coordination: CoordinationState;
  tasks_findings: readonly TaskFinding[];
  flows: FlowState;
}

const refusedFact = (domain: string, f: { seq: number; type: string; stream: string }, reason: string, subject: Finding['subject']): Finding =>
  finding({
    code: 'LOG_FACT_REFUSED',
    severity: 'warn',
    subject,
    message: `${domain}: seq ${f.seq} (${f.type} on ${f.stream}) changed nothing: ${reason}`,
    events: [{ seq: f.seq, at: null, type: f.type, stream: f.stream, actor: null, summary: reason }],
    resolve: { kind: 'show_log', from: f.seq, to: f.seq },
  });

export function integrityFindings(input: IntegrityInput): Finding[] {
  const { log } = input;
  const out: Finding[] = [];
  const rejected = new Set<number>();
  for (const r of log.rejected) {
    rejected.add(r.seq);
    out.push(
      finding({
        code: r.unknown_type ? 'LOG_EVENT_UNKNOWN_TYPE' : 'LOG_EVENT_INVALID',
        severity: r.unknown_type ? 'info' : 'error',
        subject: { kind: 'log', id: `seq ${r.seq}` },
        message: `seq ${r.seq} on ${r.stream}: ${r.summary}; every fold ignores it`,
        events: eventsOf(r),
        resolve: { kind: 'show_log', from: r.seq, to: r.seq },
      }),
    );
  }
  for (const r of log.recoveries) {
    out.push(
      finding({
        code: r.type === 'log.recovered' ? 'LOG_RECOVERED' : 'LOG_REPAIRED',
        severity: 'info',
        subject: { kind: 'log', id: `seq ${r.seq}` },
        message: `the store ${r.type === 'log.recovered' ? 'recovered from a torn write' : 'repaired the last line'} (seq ${r.seq}): ${r.summary}`,
        events: eventsOf(r),
        files: r.quarantined_to === null ? [] : [{ path: `.baton/${r.quarantined_to}`, sha256: null, expected_sha256: null, detail: 'the bytes moved aside' }],
        resolve: { kind: 'show_log', from: r.seq, to: r.seq },
      }),
    );
  }
  for (const wu of Object.values(input.work_units.wus)) {
    for (const f of stampYamlFindings(input.work_units, wu)) {
      if (rejected.has(f.seq)) continue;
      const subject = { kind: 'wu' as const, id: wu.wu_id };
      if (f.code === 'STAMP_YAML_MISMATCH' || f.code === 'STAMP_MISSING')
        out.push(
          finding({
            code: f.code,
            severity: 'warn',
            subject,
            message: f.message,
            events: [{ seq: f.seq, at: null, type: f.type, stream: f.stream, actor: null, summary: f.message }],
            resolve: { kind: 'investigate', wu: wu.wu_id },
          }),
        );
      else out.push(refusedFact('work units', f, f.message, subject));
    }
  }
  for (const f of input.coordination.findings)
    if (!rejected.has(f.seq)) out.push(refusedFact('coordination', { ...f, stream: '(coordination)' }, f.reason, { kind: 'log', id: `seq ${f.seq}` }));
  for (const f of input.tasks_findings) if (!rejected.has(f.seq)) out.push(refusedFact('tasks', f, f.reason, { kind: 'log', id: `seq ${f.seq}` }));
  for (const f of input.flows.findings) if (!rejected.has(f.seq)) out.push(refusedFact('flows', f, f.reason, { kind: 'log', id: `seq ${f.seq}` }));
  return out;
}

/** What the files say that no event records: each observation a probe would append, and the files Baton renders that were edited. */
export function diskFindings(disk: DiskFacts, fold: WorkUnitsState): Finding[] {
  const out: Finding[] = [];
  for (const event of disk.observations) {
    const d = event.data as { wu_id: string; path: string; present?: boolean; valid?: boolean; content_hash?: string | null };
    const wu = ownValue(fold.wus, d.wu_id);
    const subject = { kind: 'wu' as const, id: d.wu_id };
    if (event.type === 'observation.stamp_file') {
      const file = { path: d.path, sha256: d.content_hash ?? null, expected_sha256: null, detail: d.present === true ? 'on disk' : 'gone' };
      out.push(
        finding({
          code: d.present === true ? 'STAMP_UNRECORDED' : 'STAMP_REMOVED',
          severity: d.present === true && d.valid === true ? 'error' : 'warn',
          subject,
          message:
            d.present === true
              ? `${d.path} says ${d.wu_id} is done${d.valid === true ? '' : ' (but it is not a valid stamp)'}; no event records it`
              : `the log recorded the stamp ${d.path} of ${d.wu_id}; the file is gone and no event records that`,
          events: eventsOf(wu?.stamp_file),
          files: [file],
          resolve: { kind: 'audit_fix' },
          fix: { kind: 'observe', event },
        }),
      );
    } else if (event.type === 'observation.wu_yaml') {
      const changed = disk.yaml_changes.find((c) => c.path === d.path && c.wu_id === d.wu_id)?.changed_fields ?? [];
      out.push(
        finding({
          code: 'WU_YAML_UNRECORDED',
          severity: 'warn',
          subject,
          message: `${d.path} says ${changed.length > 0 ? changed.join(', ') : 'its fields'} differently from the log (${d.wu_id}); no event records the change`,
          events: eventsOf(wu?.yaml_status_mark),
          files: [{ path: d.path, sha256: d.content_hash ?? null, expected_sha256: wu?.yaml_content_hash ?? null, detail: 'the WU YAML as read now' }],
          resolve: { kind: 'audit_fix' },
          fix: { kind: 'observe', event },
        }),
      );
    }
  }
  for (const s of disk.altered_stamps) {
    out.push(
      finding({
        code: 'STAMP_FILE_ALTERED',
        severity: 'warn',
        subject: { kind: 'wu', id: s.wu_id },
        message: `${s.path}, the projection of ${s.wu_id}'s wu.stamped, ${s.sha256 === null ? 'is missing' : 'was changed by hand'}`,
        events: eventsOf(ownValue(fold.wus, s.wu_id)?.stamped),
        files: [{ path: s.path, sha256: s.sha256, expected_sha256: s.expected_sha256, detail: 'Baton writes it from the log' }],
        resolve: { kind: 'restore_stamp', wu: s.wu_id },
      }),
    );
  }
  for (const f of disk.edited_flow_files) {
    out.push(
      finding({
        code: 'FLOW_FILE_EDITED',
        severity: 'warn',
        subject: { kind: 'flow', id: f.path },
        message: `${f.path} was edited outside Baton: it differs from the log's rendering, and no event records the edit yet`,
        files: [{ path: f.path, sha256: f.sha256, expected_sha256: f.rendering_sha256, detail: 'the state file on disk' }],
        resolve: { kind: 'flow_status' },
      }),
    );
  }
  return out;
}
