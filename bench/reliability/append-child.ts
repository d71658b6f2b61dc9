/**
 * A child process of the crash and storm campaigns: appends to a workspace's log through the JSONL
 * store and prints one JSON line per append only after the append's promise resolved (the store
 * reported it durable): `{"seqs":[…],"hashes":[…],"deduplicated":bool}`.
 *
 *   append-child.js WORKSPACE TAG loop  SEGMENT_BYTES   appends forever (single events and batches
 *                                                        of 2–6) until killed
 *   append-child.js WORKSPACE TAG storm COUNT           COUNT single appends, each with an
 *                                                        idempotency key, a third of them retried
 */
import type { NewEvent } from '../../events/envelope.js';
import type { AppendResult } from '../../src/store/contract.js';
import { JsonlEventStore } from '../../src/store/jsonl/jsonl-store.js';

const [workspace, tag, mode, sizeText] = process.argv.slice(2);
if (workspace === undefined || tag === undefined || (mode !== 'loop' && mode !== 'storm') || sizeText === undefined) {
  process.stderr.write('usage: append-child WORKSPACE TAG (loop SEGMENT_BYTES | storm COUNT)\n');
  process.exit(2);
}

function report(result: AppendResult, key: string | undefined): void {
  const line = { key: key ?? null, seqs: result.events.map((e) => e.seq), hashes: result.events.map((e) => e.hash), deduplicated: result.deduplicated };
  // Synchronous on a pipe: once written, the parent reads it even after a SIGKILL.
  process.stdout.write(JSON.stringify(line) + '\n');
}

const note = (i: number, k: number): NewEvent => ({
  type: 'note.recorded',
  stream: `note/${tag}-${k % 3}`,
  data: { text: `${tag} #${i}.${k} ${'x'.repeat(Math.floor(Math.random() * 300))}` },
});

if (mode === 'loop') {
  const store = new JsonlEventStore(workspace, { segmentBytes: Number(sizeText) });
  for (let i = 1; ; i++) {
    const size = Math.random() < 0.5 ? 1 : 2 + Math.floor(Math.random() * 5);
    const events = Array.from({ length: size }, (_, k) => note(i, k));
    const key = Math.random() < 0.2 ? `${tag}-${i}` : undefined;
    report(await store.append(events, key !== undefined ? { idempotencyKey: key } : {}), key);
  }
} else {
  const store = new JsonlEventStore(workspace);
  const count = Number(sizeText);
  for (let i = 1; i <= count; i++) {
    const key = `${tag}-${i}`;
    const events = [note(i, 0)];
    report(await store.append(events, { idempotencyKey: key }), key);
    if (Math.random() < 1 / 3) report(await store.append(events, { idempotencyKey: key }), key);
  }
  await store.close();
}
