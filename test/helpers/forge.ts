import type { StoredEvent } from '../../events/envelope.js';
import { hashEvent, serializeEvent } from '../../src/store/hash.js';

/**
 * Hand-made stored lines that continue a log's hash chain, for simulating what a crashed writer
 * leaves behind (the complete lines of a batch whose last line never made it, a torn line).
 */
export interface ChainHead {
  seq: number;
  hash: string;
}

/**
 * `count` note.recorded events continuing `head`; with `batchSize`, they are the first `count`
 * events of a batch of that many (every line carries `batch_end`).
 */
export function forgeEvents(head: ChainHead, count: number, options: { text: string; batchSize?: number; at?: string }): StoredEvent[] {
  const batchEnd = options.batchSize !== undefined && options.batchSize > 1 ? head.seq + options.batchSize : undefined;
  const out: StoredEvent[] = [];
  let prev = head.hash;
  for (let i = 0; i < count; i++) {
    const seq = head.seq + i + 1;
    const event = sealedNote({
      seq,
      id: `01FORGED${String(seq).padStart(18, '0')}`,
      stream: 'note/forged',
      at: options.at ?? '2026-01-01T00:00:00.000Z',
      data: { text: `${options.text} ${i}` },
      ...(batchEnd !== undefined ? { batch_end: batchEnd } : {}),
      prev,
    });
    out.push(event);
    prev = event.hash;
  }
  return out;
}

/**
 * One stored note.recorded line, written by hand as a writer would have stored it (actor
 * `system`), its hash computed over the rest: the data may be any shape, today's or a legacy one.
 */
export function sealedNote(fields: Pick<StoredEvent, 'seq' | 'id' | 'stream' | 'at' | 'data' | 'prev'> & Partial<Pick<StoredEvent, 'batch_end'>>): StoredEvent {
  const base: Omit<StoredEvent, 'hash'> = {
    v: 1,
    seq: fields.seq,
    id: fields.id,
    type: 'note.recorded',
    stream: fields.stream,
    at: fields.at,
    actor: 'system',
    data: fields.data,
    ...(fields.batch_end !== undefined ? { batch_end: fields.batch_end } : {}),
    prev: fields.prev,
  };
  return { ...base, hash: hashEvent(base) };
}

/** The stored bytes of events: each canonical line with its newline. */
export function linesOf(events: readonly StoredEvent[]): Buffer {
  return Buffer.from(events.map((e) => serializeEvent(e) + '\n').join(''), 'utf8');
}

/** A deterministic PRNG (mulberry32), the reliability campaigns' own, so a failing random run replays from its seed. */
export { seeded as seededRandom } from '../../bench/reliability/cli.js';
