import { join } from 'node:path';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { rawLine, withTempDir } from './support.js';

export interface AppendWorkspace {
  store: JsonlEventStore;
  /** A file beside the segments for the raw limit loop: same directory, same file system. */
  rawPath: string;
  /** A raw line of the spec's event size. */
  line: Buffer;
}

/** A fresh JSONL workspace for an append row, with its store closed and the folder removed however the body ends. */
export function withAppendWorkspace<T>(label: string, body: (workspace: AppendWorkspace) => Promise<T>): Promise<T> {
  return withTempDir(label, async (dir) => {
    JsonlEventStore.initWorkspace(dir);
    const store = new JsonlEventStore(dir);
    try {
      return await body({ store, rawPath: join(store.layout.log, 'raw-limit.bin'), line: rawLine() });
    } finally {
      await store.close();
    }
  });
}
