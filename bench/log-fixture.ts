import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredEvent } from '../events/envelope.js';
import { GENESIS_HASH } from '../events/patterns.js';
import { newEventId } from '../src/store/append-plan.js';
import { hashEvent, serializeEvent } from '../src/store/hash.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { segmentName, workspaceLayout } from '../src/store/jsonl/layout.js';
import { noteText, streamFor } from './support.js';

/**
 * A large, valid log written straight into segment files, far faster than appending it (nothing is
 * fsynced, no lock is taken): correct seq, ids, canonical lines and hash chain, 64 MiB segments
 * named and rolled exactly as the JSONL store does. Generation time is not part of any figure.
 */
export interface LogFixture {
  dir: string;
  events: number;
  bytes: number;
  segments: number;
  generateMs: number;
}

export const FIXTURE_SEGMENT_BYTES = 64 * 1024 * 1024;
const FLUSH_BYTES = 1 << 20;
const BASE_TIME = Date.parse('2025-01-01T00:00:00.000Z');

export function generateLog(dir: string, events: number, segmentBytes = FIXTURE_SEGMENT_BYTES): LogFixture {
  const start = performance.now();
  JsonlEventStore.initWorkspace(dir);
  const logDir = workspaceLayout(dir).log;
  let fd: number | undefined;
  let segmentOffset = 0;
  let segments = 0;
  let bytes = 0;
  let pending: string[] = [];
  let pendingBytes = 0;
  const flush = (): void => {
    if (fd === undefined || pending.length === 0) return;
    const buffer = Buffer.from(pending.join(''), 'utf8');
    let written = 0;
    while (written < buffer.length) written += writeSync(fd, buffer, written, buffer.length - written);
    pending = [];
    pendingBytes = 0;
  };
  let prev = GENESIS_HASH;
  try {
    for (let seq = 1; seq <= events; seq++) {
      if (fd === undefined || segmentOffset >= segmentBytes) {
        flush();
        if (fd !== undefined) closeSync(fd);
        fd = openSync(join(logDir, segmentName(seq)), 'wx', 0o600);
        segmentOffset = 0;
        segments += 1;
      }
      const base: Omit<StoredEvent, 'hash'> = {
        v: 1,
        seq,
        id: newEventId(),
        type: 'note.recorded',
        stream: streamFor(seq),
        at: new Date(BASE_TIME + seq * 10).toISOString(),
        actor: 'system',
        data: { text: noteText(`g${seq}`) },
        prev,
      };
      const hash = hashEvent(base);
      const line = serializeEvent({ ...base, hash }) + '\n';
      const length = Buffer.byteLength(line);
      pending.push(line);
      pendingBytes += length;
      segmentOffset += length;
      bytes += length;
      prev = hash;
      if (pendingBytes >= FLUSH_BYTES) flush();
    }
    flush();
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return { dir, events, bytes, segments, generateMs: performance.now() - start };
}
