import { parentPort, workerData } from 'node:worker_threads';
import type { EventCatalog } from '../../../events/catalog.js';
import { CompiledEventCatalog } from '../../../events/compiled-catalog.js';
import { loadSchemas } from '../../../events/schema-loader.js';
import { ChainChecker } from '../chain-checker.js';
import { checkRange, type RangeReport, type VerifyRange } from './verify-range.js';

/**
 * A worker thread of a parallel verify (parallel-verify.ts): checks the ranges it is sent, one at
 * a time, and answers each with its RangeReport. It asks for work by saying it is ready and by
 * every report; the coordinator terminates it when the verify is done.
 */

/**
 * Which built-in catalog to check data with: the same kind as the store's, so each line's answer
 * is exactly the serial verify's ('compiled': CompiledEventCatalog, 'full': createCatalog()).
 */
export interface VerifyWorkerData {
  catalog: 'compiled' | 'full';
}

export type ToWorker = VerifyRange;

export type FromWorker = { kind: 'ready' } | { kind: 'report'; index: number; report: RangeReport };

const port = parentPort;
if (port === null) throw new Error('verify-worker runs as a worker thread (parallel-verify.ts starts it)');
const { catalog: kind } = workerData as VerifyWorkerData;
// The serial verify loads every zod schema before checking (the compiled catalog falls back to zod
// for what its compiled checks cannot settle): so does the worker.
const schemas = await loadSchemas();
const catalog: EventCatalog = kind === 'compiled' ? new CompiledEventCatalog() : schemas.createCatalog();

port.on('message', (range: ToWorker) => {
  const reply: FromWorker = { kind: 'report', index: range.index, report: checkRange(range, new ChainChecker(catalog, 'first-line')) };
  port.postMessage(reply);
});
const ready: FromWorker = { kind: 'ready' };
port.postMessage(ready);
