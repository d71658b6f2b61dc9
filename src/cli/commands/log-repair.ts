import type { CommandContext } from '../context.js';
import { LogRepairEnvelope } from '../../app/envelopes/foundation.js';
import type { TailRecovery } from '../../store/jsonl/jsonl-store.js';

/** A store that can have an uncommitted tail (the JSONL adapter; PostgreSQL commits rows whole). */
interface TailRepairing {
  repairTail(): Promise<TailRecovery | undefined>;
}

function canRepairTail(store: object): store is TailRepairing {
  return typeof (store as Partial<TailRepairing>).repairTail === 'function';
}

/**
 * `baton log repair`: settle the bytes after the last complete event now, as the next append
 * would: a whole last event whose newline is missing or damaged gets it back (`log.repaired`); a
 * torn write is moved to quarantine/ (`log.recovered`). A corrupt line inside the log is never
 * touched (exit 3, as for an append).
 */
export async function logRepair(ctx: CommandContext): Promise<void> {
  const store = await ctx.store();
  const outcome = canRepairTail(store) ? await store.repairTail() : undefined;
  const head = await store.head();
  const action = outcome === undefined ? 'none' : outcome.kind === 'repaired' ? 'repaired' : 'quarantined';
  ctx.output.emit(LogRepairEnvelope, { v: 1, type: 'log_repair', generated_at: ctx.now, action, record: outcome?.report ?? null, head_seq: head.seq }, (e) => {
    if (outcome === undefined) return `nothing to repair: the log ends with a complete event (head seq ${e.head_seq})`;
    if (outcome.kind === 'repaired') {
      return `restored the newline of seq ${outcome.report.seq} (${outcome.report.segment}, byte ${outcome.report.offset}); recorded log.repaired (head seq ${e.head_seq})`;
    }
    return `moved ${outcome.report.bytes} torn bytes at ${outcome.report.segment}:${outcome.report.offset} to ${outcome.report.quarantined_to}; recorded log.recovered (head seq ${e.head_seq})`;
  });
}
