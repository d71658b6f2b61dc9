import { statSync } from 'node:fs';
import type { EventCatalog } from '../../../events/catalog.js';
import type { ChainChecker } from '../chain-checker.js';
import type { VerifyReport } from '../contract.js';
import type { VerifyRun } from './jsonl-options.js';
import { LineReader } from './line-reader.js';
import type { Segment } from './segment-scan.js';
import { forgetVerifiedPrefix } from './verified-prefix.js';

/** The full checker (zod for what the fast checks cannot settle), loaded when first needed. */
export async function loadChainChecker(catalog: EventCatalog): Promise<ChainChecker> {
  const [{ ChainChecker: Checker }] = await Promise.all([import('../chain-checker.js'), catalog.loadSchemas()]);
  return new Checker(catalog);
}

export interface VerifySettings {
  catalog: EventCatalog;
  cacheDir: string;
  parallelVerifyMinBytes: number;
  parallelVerifyRangeBytes: number;
}

/**
 * The committed lines: seq, schema, seals and chain (what follows the last complete batch is
 * tail-recovery.ts tailFinding's). On worker threads when the log is large enough, else here; a
 * report that is not ok drops the verified-prefix record, so no writer trusts it.
 */
export async function verifyCommitted(segments: readonly Segment[], settings: VerifySettings, ranAs: (run: VerifyRun) => void): Promise<VerifyReport> {
  let fallback: string | undefined;
  if (settings.parallelVerifyMinBytes !== Number.POSITIVE_INFINITY) {
    let bytes = 0;
    for (const s of segments) bytes += statSync(s.path).size;
    if (bytes >= settings.parallelVerifyMinBytes) {
      const { parallelVerify } = await import('./parallel-verify.js');
      const outcome = await parallelVerify(segments, settings.catalog, { minRangeBytes: settings.parallelVerifyRangeBytes });
      if ('report' in outcome) {
        ranAs({ mode: 'parallel', workers: outcome.workers, ranges: outcome.ranges });
        if (!outcome.report.ok) forgetVerifiedPrefix(settings.cacheDir);
        return outcome.report;
      }
      // Not checked on workers (a custom catalog, a worker that failed to start or died): the
      // serial verify below decides, never a partial answer.
      fallback = outcome.fallback;
    }
  }
  ranAs({ mode: 'serial', workers: 0, ranges: 0, ...(fallback !== undefined ? { fallback } : {}) });
  // One pass in this thread; parallel-verify.ts must give exactly this report.
  const report = await verifyEachLine(segments, settings.catalog);
  if (!report.ok) forgetVerifiedPrefix(settings.cacheDir);
  return report;
}

async function verifyEachLine(segments: readonly Segment[], catalog: EventCatalog): Promise<VerifyReport> {
  const checker = await loadChainChecker(catalog);
  let pendingBatch = 0;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.firstSeq !== checker.headSeq + 1) {
      return {
        ok: false,
        head_seq: checker.headSeq,
        checked: checker.checked,
        first_bad: { seq: checker.headSeq + 1, offset: 0, segment: segment.name, reason: `segment ${segment.name} should start at seq ${checker.headSeq + 1}` },
      };
    }
    const reader = new LineReader(segment.path);
    for (const line of reader.lines()) {
      const result = checker.check(line.text, line.offset, segment.name);
      if (!result.ok) return { ok: false, head_seq: checker.headSeq - pendingBatch, checked: checker.checked, first_bad: result.bad };
      const batchEnd = result.event.batch_end;
      pendingBatch = batchEnd !== undefined && batchEnd > result.event.seq ? pendingBatch + 1 : 0;
    }
    if (reader.tailBytes > 0 && i < segments.length - 1) {
      return {
        ok: false,
        head_seq: checker.headSeq,
        checked: checker.checked,
        first_bad: { seq: checker.headSeq + 1, offset: reader.tailOffset, segment: segment.name, reason: 'unterminated line before the end of the log' },
      };
    }
  }
  // An unterminated last line or an unfinished last batch is a write in flight or torn by a
  // crash: not part of the log, quarantined by the next append.
  return { ok: true, head_seq: checker.headSeq - pendingBatch, checked: checker.checked - pendingBatch, first_bad: null };
}
