/**
 * What a JSONL store needs to write (append, recover, import) and to index streams, but not to
 * read: loaded on a handle's first write, so a read-only command loads none of it — nor
 * node:crypto and node:net with it (see the short-command budget).
 */
export { planAppend, recordWritten, validateBatch, validateBatchNow } from '../append-plan.js';
export { serializeEvent } from '../hash.js';
export { emptyIndex, IndexBuilder } from '../store-index.js';
export { loadIndexCache, saveIndexCache } from './index-cache.js';
export { acquireProcessLock, lockNameForIdentity } from './process-lock.js';
