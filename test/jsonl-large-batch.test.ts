import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { NewEvent, StoredEvent } from '../events/envelope.js';
import { GENESIS_HASH } from '../events/patterns.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { forgeEvents, linesOf } from './helpers/forge.js';
import { makeTempDir, removeTempDirs, segmentPaths } from './helpers/workspace.js';

/**
 * Reads stream a batch whose lines span many read buffers (1 MiB each) instead of holding it, and
 * still treat a batch whose last line is missing as uncommitted: invisible to every read, the
 * head before it, quarantined by the next append. (The crash tests cover small batches.)
 */
afterAll(removeTempDirs);

const text = (i: number): string => `event ${i} `.padEnd(900, 'x');
const notes = (n: number, from = 0): NewEvent[] =>
  Array.from({ length: n }, (_, i) => ({ type: 'note.recorded', stream: 'note/big', data: { text: text(from + i) } }));

async function readAll(store: JsonlEventStore): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const chunk of store.readChunks({})) out.push(...chunk);
  return out;
}

describe('large batches in the JSONL store', () => {
  it('a committed batch of ~4 MiB reads back whole, in order, through every read', async () => {
    const workspace = makeTempDir('big-batch');
    const store = new JsonlEventStore(workspace);
    await store.append(notes(3));
    const appended = await store.append(notes(4000, 3));
    await store.append(notes(2, 4003));
    const events = await readAll(store);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 4005 }, (_, i) => i + 1));
    expect(events.slice(3, 4003)).toEqual(appended.events);
    expect(events.every((e, i) => e.prev === (i === 0 ? GENESIS_HASH : events[i - 1]!.hash))).toBe(true);
    expect(await store.head()).toEqual({ seq: 4005, hash: events.at(-1)!.hash });
    const some: StoredEvent[] = [];
    for await (const e of store.read({ from: 2000, to: 2003 })) some.push(e);
    expect(some.map((e) => e.seq)).toEqual([2000, 2001, 2002, 2003]);
    expect(await store.verify()).toMatchObject({ ok: true, head_seq: 4005 });
    await store.close();
  });

  it('a batch of ~4 MiB missing its last line is uncommitted: no read sees any of it, the next append quarantines it', async () => {
    const workspace = makeTempDir('big-torn-batch');
    const writer = new JsonlEventStore(workspace);
    await writer.append(notes(5));
    const committed = await readAll(writer);
    const head = { seq: 5, hash: committed.at(-1)!.hash };
    await writer.close();
    // A batch of 4,000 whose last line never reached the disk: 3,999 complete, chained lines.
    const batch = forgeEvents(head, 3999, { text: 'x'.repeat(900), batchSize: 4000 });
    const segment = segmentPaths(workspace)[0]!;
    const before = readFileSync(segment);
    appendFileSync(segment, linesOf(batch));

    const reader = new JsonlEventStore(workspace);
    expect((await readAll(reader)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(await reader.head()).toEqual(head);
    const tail: StoredEvent[] = [];
    for await (const e of reader.read({ from: 5 })) tail.push(e);
    expect(tail.map((e) => e.seq)).toEqual([5]);
    expect(await reader.verify()).toMatchObject({ ok: false, head_seq: 5, first_bad: { seq: 6, tail: 'torn' } });
    await reader.append(notes(1, 99));
    const after = await readAll(reader);
    expect(after.map((e) => e.type)).toEqual([...Array<string>(5).fill('note.recorded'), 'log.recovered', 'note.recorded']);
    expect(after[5]!.data).toMatchObject({ reason: 'incomplete_batch', lines_dropped: 3999 });
    expect(readFileSync(segment).subarray(0, before.length).equals(before)).toBe(true);
    await reader.close();
  });

  it('a line edited inside a committed large batch is refused where it is read', async () => {
    const workspace = makeTempDir('big-tampered-batch');
    const store = new JsonlEventStore(workspace);
    await store.append(notes(4000));
    await store.close();
    const segment = segmentPaths(workspace)[0]!;
    const lines = readFileSync(segment, 'utf8').split('\n');
    lines[3000] = lines[3000]!.replace('event 3000 ', 'EVENT 3000 ');
    writeFileSync(segment, lines.join('\n'));
    const reader = new JsonlEventStore(workspace);
    await expect(readAll(reader)).rejects.toMatchObject({ code: 'LOG_CORRUPT', details: { seq: 3001 } });
    await reader.close();
  });
});
