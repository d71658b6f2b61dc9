import { parentPort } from 'node:worker_threads';
import { builtInCatalog } from '../../../events/builtin-catalog.js';
import { ChainChecker } from '../chain-checker.js';
import { checkRange, type RangeReport, type VerifyRange } from './verify-range.js';

/**
 * A worker thread of a parallel verify (parallel-verify.ts): checks the ranges it is sent, one at
 * a time, and answers each with its RangeReport. It asks for work by saying it is ready and by
 * every report; the coordinator terminates it when the verify is done.
 */

export type ToWorker = VerifyRange;

export type FromWorker = { kind: 'ready' } | { kind: 'report'; index: number; report: RangeReport };

const port = parentPort;
if (port === null) throw new Error('verify-worker runs as a worker thread (parallel-verify.ts starts it)');
// The built-in catalog, the only one a worker can rebuild (parallel-verify.ts falls back to the serial
// verify for any other), so each line's answer is the serial verify's. The serial verify loads the
// zod schemas before checking, to word what is wrong: so does the worker.
const catalog = builtInCatalog();
await catalog.loadSchemas();

port.on('message', (range: ToWorker) => {
  const reply: FromWorker = { kind: 'report', index: range.index, report: checkRange(range, new ChainChecker(catalog, 'first-line')) };
  port.postMessage(reply);
});
const ready: FromWorker = { kind: 'ready' };
port.postMessage(ready);
