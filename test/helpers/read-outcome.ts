import { isBatonError } from '../../src/errors.js';
import { JsonlEventStore, type JsonlStoreOptions } from '../../src/store/jsonl/jsonl-store.js';

/**
 * What a whole read of a JSONL workspace hands out and how it ends: each event (seq, hash, data),
 * or each stored line for readLines, then the error it stopped with, if any. Two reads of the same
 * log compare equal only when they yield the same events and end with the same error.
 */
export interface ReadOutcome {
  seqs: string[];
  error: { code: string; message: string; details: unknown } | undefined;
}

export type ReadHow = 'read' | 'readChunks' | 'readLines';

export async function readOutcome(workspace: string, options: JsonlStoreOptions, how: ReadHow): Promise<ReadOutcome> {
  const store = new JsonlEventStore(workspace, options);
  const seqs: string[] = [];
  let error: ReadOutcome['error'];
  try {
    if (how === 'read') for await (const e of store.read()) seqs.push(`${e.seq}:${e.hash}:${JSON.stringify(e.data)}`);
    else if (how === 'readChunks')
      for await (const chunk of store.readChunks()) for (const e of chunk) seqs.push(`${e.seq}:${e.hash}:${JSON.stringify(e.data)}`);
    else for await (const { event, line } of store.readLines()) seqs.push(`${event.seq}:${line}`);
  } catch (caught) {
    if (!isBatonError(caught)) throw caught;
    error = { code: caught.code, message: caught.message, details: caught.details };
  } finally {
    await store.close();
  }
  return { seqs, error };
}
