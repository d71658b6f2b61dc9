import { parentPort, workerData } from 'node:worker_threads';
import { builtInCatalog } from '../../../events/builtin-catalog.js';
import { ChainChecker } from '../chain-checker.js';
import { checkRange, type RangeReport, type VerifyRange } from './verify-range.js';

/**
 * A worker thread of a parallel verify (parallel-verify.ts): checks the ranges it is sent, one at
 * a time, and answers each with its RangeReport. It asks for work by saying it is ready and by
 * every report; the coordinator terminates it when the verify is done.
 */

/**
 * The catalog to check data with: the built-in one, the only kind a worker can rebuild (a
 * catalog with extra types is verified serially), so each line's answer is the serial verify's.
 */
export interface VerifyWorkerData {
  catalog: 'built-in';
}

export type ToWorker = VerifyRange;

export type FromWorker = { kind: 'ready' } | { kind: 'report'; index: number; report: RangeReport };

const port = parentPort;
if (port === null) throw new Error('verify-worker runs as a worker thread (parallel-verify.ts starts it)');
void (workerData as VerifyWorkerData);
// The serial verify loads the zod schemas before checking, to word what is wrong: so does the worker.
const catalog = builtInCatalog();
await catalog.loadSchemas();

port.on('message', (range: ToWorker) => {
  const reply: FromWorker = { kind: 'report', index: range.index, report: checkRange(range, new ChainChecker(catalog, 'first-line')) };
  port.postMessage(reply);
});
const ready: FromWorker = { kind: 'ready' };
port.postMessage(ready);
