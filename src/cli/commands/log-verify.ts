import type { CommandContext } from '../context.js';
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
  try {
    report = await store.verify();
  } finally {
    progress.end();
  }
  const recovery = report.ok ? undefined : recoverySteps(await ctx.workspace(), report);
  ctx.output.emit(LogVerificationEnvelope, { v: 1, type: 'log_verification', generated_at: ctx.now, ...report, ...(recovery ? { recovery } : {}) }, (r) =>
    r.ok
      ? `log verified: ${r.checked} events, seq 1…${r.head_seq}, hash chain unbroken`
      : [
          `log NOT valid at seq ${r.first_bad!.seq} (${r.first_bad!.segment ? `${r.first_bad!.segment}, ` : ''}byte ${r.first_bad!.offset}): ${r.first_bad!.reason}`,
          r.first_bad!.tail !== undefined
            ? `the ${r.recovery!.intact_to} events before it are intact; to settle the tail now (the next append would):`
            : `appends are refused until it is repaired; to recover the ${r.recovery!.intact_to} intact events:`,
          ...r.recovery!.steps.map((step) => `  ${step}`),
        ].join('\n'),
  );
  return report.ok ? 0 : 3;
}
