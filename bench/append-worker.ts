/**
 * A child process of the `append-concurrent` benchmark, run with plain node against the compiled
 * code. Usage: append-worker.js (baton|raw) TARGET COUNT WORKER
 *   baton: append COUNT notes, one per call, to the workspace TARGET through the JSONL store;
 *   raw:   write+fdatasync COUNT lines to the file TARGET (the machine's limit).
 * It loads everything, says `ready` over IPC, waits for `go`, and reports when its work started
 * and ended on the monotonic clock (shared by every process on the machine).
 */
import { rawAppendLoop } from './raw-append.js';
import { noteEvent, rawLine } from './support.js';

export interface WorkerDone {
  kind: 'done';
  /** process.hrtime.bigint() at start and end, as strings (IPC carries JSON). */
  start: string;
  end: string;
  count: number;
}

const [mode, target, countArg, workerArg] = process.argv.slice(2);
const count = Number(countArg);
const worker = Number(workerArg);
if ((mode !== 'baton' && mode !== 'raw') || target === undefined || !Number.isInteger(count) || !Number.isInteger(worker) || !process.send) {
  console.error('usage (with an IPC channel): append-worker.js (baton|raw) TARGET COUNT WORKER');
  process.exit(2);
}

let work: () => Promise<void>;
if (mode === 'baton') {
  const { JsonlEventStore } = await import('../src/store/jsonl/jsonl-store.js');
  const store = new JsonlEventStore(target);
  const events = Array.from({ length: count }, (_, i) => noteEvent(i, `w${worker}-${i}`));
  work = async () => {
    for (const event of events) await store.append([event]);
    await store.close();
  };
} else {
  const line = rawLine(`w${worker}`);
  work = async () => {
    rawAppendLoop(target, line, count);
  };
}

process.once('message', (message: { kind?: string }) => {
  if (message.kind !== 'go') process.exit(2);
  void (async () => {
    const start = process.hrtime.bigint();
    await work();
    const end = process.hrtime.bigint();
    const done: WorkerDone = { kind: 'done', start: String(start), end: String(end), count };
    process.send!(done, () => process.disconnect());
  })().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
});
process.send({ kind: 'ready' });
