import type { z } from 'zod';
import { auditWhy as auditWhyEnvelope, auditWorkspace } from '../../app/commands/audit.js';
import { AuditEnvelope, AuditWhyEnvelope } from '../../app/envelopes/audit.js';
import type { CommandContext } from '../context.js';

/** `baton audit` and `baton audit why WU` (src/app/commands/audit.ts), printed. */
type Audit = z.output<typeof AuditEnvelope>;
type Why = z.output<typeof AuditWhyEnvelope>;

const SEVERITY_TITLE = { error: 'Errors', warn: 'Warnings', info: 'Info' } as const;

function findingLines(f: Audit['findings'][number]): string[] {
  const lines = [`  ${f.code} ${f.subject.kind} ${f.subject.id}: ${f.message}`];
  for (const e of f.evidence.events)
    lines.push(`      seq ${e.seq}${e.at !== null ? ` ${e.at}` : ''} ${e.type}${e.actor !== null ? ` by ${e.actor}` : ''}: ${e.summary}`);
  for (const g of f.evidence.git) lines.push(`      ${g.kind} ${g.id === null ? '(none)' : g.id.slice(0, 12)} ${g.name}: ${g.detail}`);
  for (const file of f.evidence.files)
    lines.push(
      `      file ${file.path}: ${file.sha256 === null ? 'absent' : `sha256 ${file.sha256.slice(0, 12)}`}${file.expected_sha256 !== null ? ` (the log implies ${file.expected_sha256.slice(0, 12)})` : ''}; ${file.detail}`,
    );
  lines.push(`      resolve: ${f.resolve}${f.fixable ? '   (or baton audit --fix)' : ''}`);
  return lines;
}

export function auditText(e: Audit): string {
  const position =
    e.as_of.seq === e.head_seq ? `the log at its head (seq ${e.head_seq})` : `the log as of seq ${e.as_of.seq} (${e.as_of.at}; head ${e.head_seq})`;
  const repo = e.repository === null ? 'no git repository' : `${e.repository.commits} commits, integration branch ${e.repository.integration.name}`;
  const lines = [`Audit of ${position} against ${repo}: ${e.counts.error} errors, ${e.counts.warn} warnings, ${e.counts.info} info`];
  for (const fix of e.fixed) lines.push(`fixed ${fix.code} ${fix.subject}: appended ${fix.type} at seq ${fix.seq}`);
  for (const severity of ['error', 'warn', 'info'] as const) {
    const group = e.findings.filter((f) => f.severity === severity);
    if (group.length === 0) continue;
    lines.push('', `${SEVERITY_TITLE[severity]} (${group.length}):`);
    for (const f of group) lines.push(...findingLines(f));
  }
  if (e.findings.length === 0) lines.push('No findings: the record and the repository agree.');
  else lines.push('');
  lines.push(`${e.ok ? 'ok' : 'FAILED'} at --fail-on ${e.fail_on}`);
  return lines.join('\n');
}

export async function audit(ctx: CommandContext, options: { at?: string; fix?: boolean; failOn?: string }): Promise<number> {
  const envelope = await auditWorkspace(ctx, { at: options.at, fix: options.fix, fail_on: options.failOn });
  ctx.output.emit(AuditEnvelope, envelope, auditText);
  return envelope.ok ? 0 : 3;
}

function whyText(e: Why): string {
  return [`${e.wu_id}: ${e.chain.length} events (log head ${e.head_seq})`, ...e.chain.map((l) => `  seq ${l.seq}  ${l.at}  ${l.actor}  ${l.text}`)].join('\n');
}

export async function auditWhy(ctx: CommandContext, wu: string): Promise<void> {
  ctx.output.nameArguments({ wu: 'WU' });
  ctx.output.emit(AuditWhyEnvelope, await auditWhyEnvelope(ctx, { wu }), whyText);
}
