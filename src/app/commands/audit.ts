import type { z } from 'zod';
import { countBySeverity, failsAt } from '../../../projections/audit/findings.js';
import type { Finding } from '../../../projections/audit/types.js';
import { whyProjection } from '../../../projections/audit/why.js';
import { fixAudit } from '../../audit/fix-audit.js';
import { resolveCommand } from '../../audit/resolve.js';
import { runAudit, type AuditPosition, type AuditResult } from '../../audit/run-audit.js';
import { BatonError, ErrorCode, invalidField } from '../../errors.js';
import { runProjection } from '../../store/projection-runner.js';
import { checkWuId } from '../../work-units/env.js';
import type { AppContext } from '../context.js';
import { checked } from '../envelopes/checked.js';
import { AuditEnvelope, AuditWhyEnvelope } from '../envelopes/audit.js';

/**
 * `baton audit` and `baton audit why WU`: the record against the repository and the clock
 * (src/audit/, findings in projections/audit/). The audit appends nothing unless `fix` is given;
 * `at` audits a past position of the log (the repository as it is now). Inputs are checked by their
 * domain names (`fail_on`, `at`, `wu`) before the log is read.
 */
export type AuditEnvelope = z.output<typeof AuditEnvelope>;
export type AuditWhyEnvelope = z.output<typeof AuditWhyEnvelope>;

export interface AuditInput {
  /** A seq (`120`) or an ISO time: audit the log as of that position. */
  at?: string | undefined;
  /** Append the corrective events the findings name (at the head only). */
  fix?: boolean | undefined;
  /** The least severity that fails the audit: `error` (default) or `warn`. */
  fail_on?: string | undefined;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function checkAt(value: string): AuditPosition {
  if (/^\d+$/.test(value) && Number.isSafeInteger(Number(value))) return { seq: Number(value) };
  if (ISO.test(value) && !Number.isNaN(Date.parse(value))) return { time: new Date(value).toISOString() };
  throw invalidField(`must be a seq (a whole number) or an ISO-8601 time like 2026-01-31T12:00:00Z, got ${JSON.stringify(value)}`, 'at');
}

function checkFailOn(value: string | undefined): 'warn' | 'error' {
  if (value === undefined || value === 'error') return 'error';
  if (value === 'warn') return 'warn';
  throw invalidField(`must be warn or error, got ${JSON.stringify(value)}`, 'fail_on');
}

function findingOut(f: Finding): AuditEnvelope['findings'][number] {
  return {
    code: f.code,
    severity: f.severity,
    subject: f.subject,
    message: f.message,
    evidence: f.evidence,
    resolve: resolveCommand(f.resolve),
    fixable: f.fix !== null,
  };
}

function envelopeOf(app: AppContext, audit: AuditResult, failOn: 'warn' | 'error', fixed: AuditEnvelope['fixed']): AuditEnvelope {
  const repo = audit.repository;
  return checked(AuditEnvelope, {
    v: 1,
    type: 'audit',
    generated_at: app.now,
    as_of: audit.as_of,
    head_seq: audit.head_seq,
    fail_on: failOn,
    ok: !failsAt(audit.findings, failOn),
    counts: countBySeverity(audit.findings),
    repository:
      repo === null
        ? null
        : {
            top_level: repo.top_level,
            integration: repo.integration,
            branches: Object.keys(repo.branches).length,
            worktrees: repo.worktrees.length,
            commits: repo.commits.length,
          },
    findings: audit.findings.map(findingOut),
    fixed,
    timings_ms: audit.timings_ms,
  });
}

/** `baton audit [--at SEQ|TIME] [--fix] [--fail-on warn|error]`: the findings; with `fix`, the corrective events first, then the audit after them. */
export async function auditWorkspace(app: AppContext, input: AuditInput): Promise<AuditEnvelope> {
  const at = input.at === undefined ? undefined : checkAt(input.at);
  const failOn = checkFailOn(input.fail_on);
  if (input.fix === true && at !== undefined) throw invalidField('audits a past position, and fixes are appended at the head: give one or the other', 'at');
  const audit = await runAudit(app, at);
  if (input.fix !== true) return envelopeOf(app, audit, failOn, []);
  const fixed = await fixAudit(app, audit);
  const after = fixed.length === 0 ? audit : await runAudit(app);
  return envelopeOf(
    app,
    after,
    failOn,
    fixed.map((f) => ({ seq: f.seq, type: f.type, code: f.code, subject: f.subject })),
  );
}

/** `baton audit why WU`: the causal chain behind the WU's state across streams; UNKNOWN_ID when the log never named it. */
export async function auditWhy(app: AppContext, input: { wu: string }): Promise<AuditWhyEnvelope> {
  const wu = checkWuId(input.wu);
  const store = await app.store();
  const run = await runProjection(store, whyProjection(wu), { catalog: await app.catalog(), now: app.now });
  if (run.view === null) throw new BatonError(ErrorCode.UNKNOWN_ID, `WU ${wu} not found`, { wu_id: wu });
  return checked(AuditWhyEnvelope, { v: 1, type: 'audit_why', generated_at: app.now, wu_id: wu, head_seq: run.seq, chain: run.view });
}
