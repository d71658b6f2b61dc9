import type { StoredEvent } from '../../events/envelope.js';
import { JsonlEventStore } from '../../src/store/jsonl/jsonl-store.js';
import { count, record, type CampaignResult } from './outcome.js';

/**
 * What an appender reported as done: these seqs with these hashes must be in the log forever. A
 * null hash is an event of an acknowledged batch whose summary named only its last event's hash:
 * the hash chain up to that last event pins it.
 */
export interface Acknowledged {
  key?: string | null;
  seqs: number[];
  hashes: (string | null)[];
  deduplicated: boolean;
}

/**
 * Every seq a log has acknowledged, with its hash: a seq acknowledged twice must be acknowledged with
 * the same hash (a deduplicated retry answers the first append), never with another event's.
 */
export class AcknowledgedSeqs {
  private readonly hashes = new Map<number, string>();

  /** Adds `ack`, recording a reused seq for each seq already acknowledged with another hash. */
  add(ack: Acknowledged, result: CampaignResult, where: string): void {
    ack.seqs.forEach((seq, i) => {
      const hash = ack.hashes[i];
      if (hash === null || hash === undefined) return;
      const before = this.hashes.get(seq);
      if (before !== undefined && before !== hash)
        record(result, 'reusedSeqs', `${where}: seq ${seq} acknowledged as ${before.slice(0, 12)}, then as ${hash.slice(0, 12)}`);
      else this.hashes.set(seq, hash);
    });
  }
}

/**
 * Check a workspace's log after a campaign step, through the store's public reads: every
 * acknowledged event is there with its hash, no batch is partly visible, the log verifies (but for
 * a tail a kill left, which the next append settles: then it verifies), and the next append
 * succeeds. Returns the events read (before that append).
 */
export async function checkLog(workspace: string, acknowledged: readonly Acknowledged[], result: CampaignResult, where: string): Promise<StoredEvent[]> {
  const store = new JsonlEventStore(workspace);
  try {
    const events: StoredEvent[] = [];
    try {
      for await (const event of store.read()) events.push(event);
    } catch (error) {
      record(result, 'otherFailures', `${where}: read failed: ${(error as Error).message}`);
      return [];
    }
    const bySeq = new Map(events.map((e) => [e.seq, e]));
    for (const ack of acknowledged) {
      ack.seqs.forEach((seq, i) => {
        result.checked += 1;
        const stored = bySeq.get(seq);
        const hash = ack.hashes[i] ?? null;
        if (stored === undefined) record(result, 'acknowledgedLost', `${where}: acknowledged seq ${seq} is missing`);
        else if (hash !== null && stored.hash !== hash) {
          // The acknowledged event is gone and its seq holds another: a loss, and a seq reused.
          record(result, 'acknowledgedLost', `${where}: acknowledged seq ${seq} (${hash.slice(0, 12)}) is another event (${stored.hash.slice(0, 12)})`);
          record(result, 'reusedSeqs', `${where}: seq ${seq} was acknowledged as ${hash.slice(0, 12)} and now holds ${stored.hash.slice(0, 12)}`);
        }
      });
    }
    // A batch is visible whole or not at all: every event naming a batch_end has all its batch after it.
    for (const event of events) {
      const end = event.batch_end;
      if (end === undefined || end <= event.seq) continue;
      for (let seq = event.seq + 1; seq <= end; seq++) {
        if (bySeq.get(seq)?.batch_end !== end) {
          record(result, 'partialBatches', `${where}: batch ${event.seq}…${end} visible without seq ${seq}`);
          break;
        }
      }
    }
    // A SIGKILL in the middle of a write() can leave a torn tail: a write is cut at a page boundary
    // when the kill arrives between its pages, and that append was never acknowledged. Verify names
    // such a tail (and fails on it) until the next append quarantines it; anything else it finds is
    // damage to the committed log.
    const verify = await store.verify();
    const tail = verify.first_bad?.tail;
    if (!verify.ok && tail === undefined) record(result, 'otherFailures', `${where}: verify failed at ${JSON.stringify(verify.first_bad)}`);
    if (tail !== undefined) count(result, tail === 'torn' ? 'torn tails quarantined' : 'unterminated events repaired');
    try {
      await store.append([{ type: 'note.recorded', stream: 'note/checker', data: { text: `after ${where}` } }]);
    } catch (error) {
      record(result, 'otherFailures', `${where}: the next append failed: ${(error as Error).message}`);
    }
    if (tail !== undefined) {
      const settled = await store.verify();
      if (!settled.ok)
        record(result, 'otherFailures', `${where}: after the next append settled a ${tail} tail, verify still fails at ${JSON.stringify(settled.first_bad)}`);
    }
    return events;
  } finally {
    await store.close();
  }
}

/** The lines a library appender (append-child.ts) printed: each one an append the store reported durable. */
export function parseReports(stdout: string): Acknowledged[] {
  const lines = stdout.split('\n');
  lines.pop(); // an unterminated last line was cut by the kill: never reported as done
  return lines.filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Acknowledged);
}
