import type { z } from 'zod';
import type { CommandContext } from '../context.js';
import { checkLogAnchors, type LogAnchorsCheck } from '../../app/commands/log-anchors.js';
import { LogVerificationEnvelope } from '../../app/envelopes/foundation.js';
import type { VerifyReport } from '../../store/contract.js';
import { startProgress } from '../progress.js';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceLayout } from '../../store/jsonl/layout.js';

/** The bytes of the JSONL log's segments (0 when there are none: a PostgreSQL store), for the progress line. */
function segmentBytes(logDir: string): number {
  try {
    return readdirSync(logDir)
      .filter((name) => name.endsWith('.jsonl'))
      .reduce((sum, name) => sum + statSync(join(logDir, name)).size, 0);
  } catch {
    return 0;
  }
}

/**
 * How to get a sound log back from one with a corrupt line, which Baton never overwrites: export
 * the intact prefix (every complete batch before the bad line) and import it into a fresh workspace.
 */
export function recoverySteps(workspace: string, report: VerifyReport): { intact_to: number; steps: string[] } {
  const dir = quoteArg(workspace);
  if (report.first_bad?.tail !== undefined) {
    // The committed log is sound: only the bytes after its last complete event need settling.
    return { intact_to: report.head_seq, steps: [`baton --dir ${dir} log repair`] };
  }
  const fresh = quoteArg(`${workspace}-restored`);
  const keep = 'the events after it stay in the old .baton/log, untouched, for inspection';
  if (report.head_seq === 0) {
    return {
      intact_to: 0,
      steps: [`no event before the corrupt line is intact: start a fresh workspace (baton --dir ${fresh} init); ${keep}`],
    };
  }
  const file = quoteArg(`${workspace}-intact-${report.head_seq}.jsonl`);
  return {
    intact_to: report.head_seq,
    steps: [
      `baton --dir ${dir} log export --to ${report.head_seq} --out ${file}`,
      `baton --dir ${fresh} log import ${file}`,
      `then use ${fresh} as the workspace (or move its .baton/ into place); ${keep}`,
    ],
  };
}

function quoteArg(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

export async function logVerify(ctx: CommandContext): Promise<number> {
  const store = await ctx.store();
  // The store checks the log in one call (on worker threads for a large log): the line says how
  // long it has been working, not how far it got.
  const size = ctx.env['BATON_STORE_URL'] ? 0 : segmentBytes(workspaceLayout(await ctx.workspace()).log);
  const progress = startProgress(
    ctx,
    `verifying the log${size > 0 ? ` (${size >= 1_000_000 ? `${(size / 1_000_000).toFixed(1)} MB` : `${(size / 1_000).toFixed(1)} kB`})` : ''}: hash chain and schemas`,
  );
  let report: VerifyReport;
  let anchors: LogAnchorsCheck;
  try {
    report = await store.verify();
    anchors = await checkLogAnchors(ctx, store, report);
  } finally {
    progress.end();
  }
  const recovery = report.ok ? undefined : recoverySteps(await ctx.workspace(), report);
  const ok = report.ok && anchors.ok;
  ctx.output.emit(
    LogVerificationEnvelope,
    { v: 1, type: 'log_verification', generated_at: ctx.now, ...report, ok, ...(recovery ? { recovery } : {}), anchors },
    (r) => (r.first_bad === null ? [chainLine(r), ...anchorLines(r.anchors)] : corruptLines(r)).join('\n'),
  );
  return ok ? 0 : 3;
}

type Verification = z.output<typeof LogVerificationEnvelope>;

function chainLine(r: Verification): string {
  return r.anchors.ok
    ? `log verified: ${r.checked} events, seq 1…${r.head_seq}, hash chain unbroken`
    : `log NOT valid: its hash chain is unbroken (${r.checked} events, seq 1…${r.head_seq}), but it disagrees with its anchors in ${r.anchors.ref}:`;
}

function corruptLines(r: Verification): string[] {
  return [
    `log NOT valid at seq ${r.first_bad!.seq} (${r.first_bad!.segment ? `${r.first_bad!.segment}, ` : ''}byte ${r.first_bad!.offset}): ${r.first_bad!.reason}`,
    r.first_bad!.tail !== undefined
      ? `the ${r.recovery!.intact_to} events before it are intact; to settle the tail now (the next append would):`
      : `appends are refused until it is repaired; to recover the ${r.recovery!.intact_to} intact events:`,
    ...r.recovery!.steps.map((step) => `  ${step}`),
  ];
}

/** At most this many anchors are named one per line in human mode (JSON lists them all). */
const ANCHOR_LINES = 10;

/** What the anchors say, after the chain's line: nothing outside a git repository (as before anchors). */
function anchorLines(anchors: Verification['anchors']): string[] {
  if (anchors.repository === null) return [];
  if (anchors.found === 0 && anchors.malformed.length === 0)
    return [`no anchors of this workspace in ${anchors.ref} (baton log anchor records the head there)`];
  const findings = [...anchors.malformed.map((m) => `  commit ${m.commit} is no anchor: ${m.problem}`), ...anchors.checked.flatMap((a) => anchorFinding(a))];
  if (findings.length === 0) {
    const latest = anchors.checked[0]!;
    const signed = anchors.checked.filter((a) => a.signature !== null);
    const signatures = signed.length > 0 ? `; signatures: ${signatureSummary(signed.map((a) => a.signature!.status))}` : '';
    return [
      `anchors: the log matches ${anchors.found === 1 ? 'its anchor' : `all ${anchors.found} of its anchors`} in ${anchors.ref} (latest: seq ${latest.seq}, commit ${latest.commit.slice(0, 12)}, ${latest.anchored_at})${signatures}`,
    ];
  }
  const shown = findings.slice(0, ANCHOR_LINES);
  return findings.length > shown.length ? [...shown, `  … and ${findings.length - shown.length} more (--json lists every anchor)`] : shown;
}

function anchorFinding(a: Verification['anchors']['checked'][number]): string[] {
  const named = `anchor ${a.commit} (seq ${a.seq}, hash ${a.hash}, anchored ${a.anchored_at})`;
  const lines: string[] = [];
  if (a.status === 'truncated') lines.push(`  ${named}: the log ends before seq ${a.seq}: events were removed`);
  if (a.status === 'rewritten') lines.push(`  ${named}: the event at seq ${a.seq} now has hash ${a.found_hash ?? '(none)'}: the log was rewritten`);
  if (a.signature !== null && (a.signature.status === 'bad' || a.signature.status === 'revoked'))
    lines.push(`  ${named}: its signature is ${a.signature.status} (git verify-commit ${a.commit.slice(0, 12)})`);
  return lines;
}

function signatureSummary(statuses: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${n} ${status}`).join(', ');
}
