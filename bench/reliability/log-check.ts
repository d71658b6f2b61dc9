import type { StoredEvent } from '../../events/envelope.js';
import { JsonlEventStore } from '../../src/store/jsonl/jsonl-store.js';
import { record, type CampaignResult } from './outcome.js';

/** What an appender reported as done: these seqs with these hashes must be in the log forever. */
export interface Acknowledged {
  seqs: number[];
  hashes: string[];
  deduplicated: boolean;
}

/**
 * Check a workspace's log after a campaign step, through the store's public reads: every
 * acknowledged event is there with its hash, no batch is partly visible, the log verifies, and the
 * next append (which recovers any torn tail) succeeds. Returns the number of events read.
 */
export async function checkLog(workspace: string, acknowledged: readonly Acknowledged[], result: CampaignResult, where: string): Promise<number> {
  const store = new JsonlEventStore(workspace);
  try {
    const events: StoredEvent[] = [];
    try {
      for await (const event of store.read()) events.push(event);
    } catch (error) {
      record(result, 'otherFailures', `${where}: read failed: ${(error as Error).message}`);
      return 0;
    }
    const bySeq = new Map(events.map((e) => [e.seq, e]));
    for (const ack of acknowledged) {
      ack.seqs.forEach((seq, i) => {
        result.checked += 1;
        if (bySeq.get(seq)?.hash !== ack.hashes[i]) record(result, 'acknowledgedLost', `${where}: acknowledged seq ${seq} (${ack.hashes[i]!.slice(0, 12)}) is ${bySeq.has(seq) ? 'another event' : 'missing'}`);
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
    const verify = await store.verify();
    if (!verify.ok) record(result, 'otherFailures', `${where}: verify failed at ${JSON.stringify(verify.first_bad)}`);
    try {
      await store.append([{ type: 'note.recorded', stream: 'note/checker', data: { text: `after ${where}` } }]);
    } catch (error) {
      record(result, 'otherFailures', `${where}: the next append failed: ${(error as Error).message}`);
    }
    return events.length;
  } finally {
    await store.close();
  }
}

export function parseReports(stdout: string): Acknowledged[] {
  const lines = stdout.split('\n');
  lines.pop(); // an unterminated last line was cut by the kill: never reported as done
  return lines.filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Acknowledged);
}
