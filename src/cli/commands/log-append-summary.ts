import type { z } from 'zod';
import type { AppendResult } from '../../store/contract.js';
import type { AppendSummaryEnvelope } from '../../app/envelopes/foundation.js';

type AppendSummary = z.output<typeof AppendSummaryEnvelope>;

/**
 * What the calls of one `log append --events` have stored so far: the figures of its summary, kept
 * as the calls land (not every result: a 200,000-line file would hold 200,000 of them), so a
 * failure half-way can still report what landed before it.
 */
export class AppendTally {
  calls = 0;
  count = 0;
  deduplicated = 0;
  private first: { seq: number } | undefined;
  private last: { seq: number; hash: string } | undefined;

  add(result: AppendResult): void {
    this.calls += 1;
    this.count += result.events.length;
    if (result.deduplicated) this.deduplicated += result.events.length;
    // Lowest and highest seq, not first and last in order: a deduplicated call returns events stored earlier.
    for (const event of result.events) {
      if (this.first === undefined || event.seq < this.first.seq) this.first = { seq: event.seq };
      if (this.last === undefined || event.seq > this.last.seq) this.last = { seq: event.seq, hash: event.hash };
    }
  }

  /** The `append_summary` envelope's fields, or undefined while no call has landed. */
  envelope(generatedAt: string): AppendSummary | undefined {
    if (this.first === undefined || this.last === undefined) return undefined;
    return {
      v: 1,
      type: 'append_summary',
      generated_at: generatedAt,
      count: this.count,
      calls: this.calls,
      first_seq: this.first.seq,
      last_seq: this.last.seq,
      head_hash: this.last.hash,
      deduplicated: this.deduplicated,
    };
  }
}

/** `appended 3 events in 3 calls: seq 4…6, head 0ce53985948e (1 already appended)`. */
export function humanAppendSummary(summary: AppendSummary): string {
  const calls = summary.calls === 1 ? '1 batch' : `${summary.calls} calls`;
  const repeated = summary.deduplicated > 0 ? ` (${summary.deduplicated} already appended)` : '';
  return `appended ${summary.count} event${summary.count === 1 ? '' : 's'} in ${calls}: seq ${summary.first_seq}…${summary.last_seq}, head ${summary.head_hash.slice(0, 12)}${repeated}`;
}
