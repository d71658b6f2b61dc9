import { appendFileSync, closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { NewEvent } from '../events/envelope.js';
import { JsonlEventStore, type JsonlStoreOptions } from '../src/store/jsonl/jsonl-store.js';
import { segmentName } from '../src/store/jsonl/layout.js';
import { scanTailLines, type Cursor } from '../src/store/jsonl/segment-scan.js';
import { sealEvent, serializeEvent } from '../src/store/hash.js';
import { makeTempDir, removeTempDirs, segmentBytes, segmentPaths, storedEvents, storedLines } from './helpers/workspace.js';

/**
 * Two handles on one log stand for two processes: each keeps its own idea of the tail between
 * appends, and must catch up with what the other wrote (or rolled) before writing itself.
 */
afterAll(removeTempDirs);

const note = (text: string): NewEvent => ({ type: 'note.recorded', stream: 'note/handles', data: { text } });

/** Handles a and b on one fresh workspace, closed after `body` whatever it does. */
async function withHandles(
  body: (a: JsonlEventStore, b: JsonlEventStore, workspace: string) => Promise<void>,
  bOptions: JsonlStoreOptions = {},
): Promise<void> {
  const workspace = makeTempDir();
  const a = new JsonlEventStore(workspace);
  const b = new JsonlEventStore(workspace, bOptions);
  try {
    await body(a, b, workspace);
  } finally {
    await a.close();
    await b.close();
  }
}

async function seqsOf(store: JsonlEventStore): Promise<number[]> {
  const seqs: number[] = [];
  for await (const event of store.read()) seqs.push(event.seq);
  return seqs;
}

describe('handles sharing one log', () => {
  it('a handle appends after what another handle appended to its segment since its own last write', async () => {
    await withHandles(async (a, b) => {
      await a.append([note('a1')]);
      await a.append([note('a2')]);
      const fromB = await b.append([note('b1'), note('b2')]);
      const next = await a.append([note('a3')]);
      expect(next.events[0]).toMatchObject({ seq: 5, prev: fromB.events[1]!.hash });
      expect(await seqsOf(a)).toEqual([1, 2, 3, 4, 5]);
      expect(await a.verify()).toEqual({ ok: true, head_seq: 5, checked: 5, first_bad: null });
    });
  });

  it('a handle whose segment did not change still follows a roll-over made by another handle (new segment at its tail seq)', async () => {
    // A tiny segment size: b's first append finds a's segment full and starts the next one.
    await withHandles(
      async (a, b, workspace) => {
        await a.append([note('a1')]);
        await a.append([note('a2')]);
        const fromB = await b.append([note('b1')]);
        expect(segmentPaths(workspace).map((p) => basename(p))).toEqual([segmentName(1), segmentName(3)]);
        // a's segment is exactly as a left it: only the new segment tells that the log moved on.
        const next = await a.append([note('a3')]);
        expect(next.events[0]).toMatchObject({ seq: 4, prev: fromB.events[0]!.hash });
        expect(await seqsOf(a)).toEqual([1, 2, 3, 4]);
        expect(await a.verify()).toEqual({ ok: true, head_seq: 4, checked: 4, first_bad: null });
      },
      { segmentBytes: 1 },
    );
  });

  it('a handle appending alone keeps a contiguous chain across many appends and its own roll-overs', async () => {
    const workspace = makeTempDir();
    const a = new JsonlEventStore(workspace, { segmentBytes: 2_000 });
    try {
      for (let i = 0; i < 40; i++) await a.append([note(`n${i}`)]);
      expect(segmentPaths(workspace).length).toBeGreaterThan(3);
      expect(await seqsOf(a)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      const reader = new JsonlEventStore(workspace);
      expect(await reader.verify()).toEqual({ ok: true, head_seq: 40, checked: 40, first_bad: null });
      await reader.close();
    } finally {
      await a.close();
    }
  });

  it('a handle follows single-event lines another handle appended and then a roll-over that came after them', async () => {
    const workspace = makeTempDir();
    const a = new JsonlEventStore(workspace);
    await a.append([note('a1')]);
    // A segment size just over two lines: after b's second line the segment is full, and b's third starts the next one.
    const lineBytes = segmentBytes(workspace).length;
    const b = new JsonlEventStore(workspace, { segmentBytes: 2 * lineBytes + 1 });
    try {
      await b.append([note('b1')]);
      await b.append([note('b2')]);
      await b.append([note('b3')]);
      expect(segmentPaths(workspace).map((p) => basename(p))).toEqual([segmentName(1), segmentName(4)]);
      const next = await a.append([note('a2')]);
      expect(next.events[0]).toMatchObject({ seq: 5 });
      expect(segmentPaths(workspace).map((p) => basename(p))).toEqual([segmentName(1), segmentName(4)]);
      expect(storedLines(workspace)).toHaveLength(5);
      expect(await a.verify()).toEqual({ ok: true, head_seq: 5, checked: 5, first_bad: null });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a line with a broken seal appended behind a handle is refused by its next append, and nothing is written', async () => {
    await withHandles(async (a, b, workspace) => {
      await a.append([note('a1')]);
      await b.append([note('b1')]);
      await b.append([note('b2')]);
      // Edit b1's text in place (same length): its seal no longer holds.
      const [path] = segmentPaths(workspace);
      writeFileSync(path!, readFileSync(path!, 'utf8').replace('"text":"b1"', '"text":"B1"'));
      const before = segmentBytes(workspace);
      await expect(a.append([note('a2')])).rejects.toMatchObject({ code: 'LOG_CORRUPT', details: { seq: 2 } });
      expect(segmentBytes(workspace).equals(before)).toBe(true);
    });
  });

  it('a torn line behind a handle is quarantined by its next append, which goes after the committed lines', async () => {
    await withHandles(async (a, b, workspace) => {
      await a.append([note('a1')]);
      await b.append([note('b1')]);
      const [path] = segmentPaths(workspace);
      appendFileSync(path!, '{"v":1,"seq":3,"id":"torn');
      const next = await a.append([note('a2')]);
      expect(next.events[0]).toMatchObject({ seq: 4 });
      expect(storedEvents(workspace).map((e) => e.type)).toEqual(['note.recorded', 'note.recorded', 'log.recovered', 'note.recorded']);
      expect(await a.verify()).toMatchObject({ ok: true });
    });
  });

  it('handles appending in any interleaving, batch size and segment size keep one contiguous chain and exact stream versions', async () => {
    const step = fc.record({ handle: fc.nat(2), size: fc.integer({ min: 1, max: 3 }), stream: fc.nat(2), guarded: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 25 }),
        fc.array(fc.integer({ min: 600, max: 5_000 }), { minLength: 3, maxLength: 3 }),
        async (steps, sizes) => {
          const workspace = makeTempDir();
          const handles = sizes.map((segmentBytes) => new JsonlEventStore(workspace, { segmentBytes }));
          try {
            const versions = [0, 0, 0];
            let seq = 0;
            let lastId = '';
            for (const [i, { handle, size, stream, guarded }] of steps.entries()) {
              const events = Array.from({ length: size }, (_, k) => ({ ...note(`s${i}-${k}`), stream: `note/h${stream}` }));
              // A guarded append needs the handle's stream index, which it must keep up to date with the others' lines.
              const options = guarded ? { expectedVersion: versions[stream]! } : {};
              const result = await handles[handle]!.append(events, options);
              expect(result.events.map((e) => e.seq)).toEqual(Array.from({ length: size }, (_, k) => seq + k + 1));
              for (const e of result.events) {
                expect(e.id > lastId).toBe(true);
                lastId = e.id;
              }
              seq += size;
              versions[stream]! += size;
            }
            const stored = storedEvents(workspace);
            expect(stored.map((e) => e.seq)).toEqual(Array.from({ length: seq }, (_, k) => k + 1));
            expect(await handles[0]!.verify()).toEqual({ ok: true, head_seq: seq, checked: seq, first_bad: null });
          } finally {
            for (const h of handles) await h.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe("scanTailLines: the lines appended after a writer's tail, in one read", () => {
  async function logWith(count: number, batch = 1): Promise<{ workspace: string; path: string; cursor: Cursor }> {
    const workspace = makeTempDir();
    const store = new JsonlEventStore(workspace);
    const first = await store.append([note('first')]);
    const path = segmentPaths(workspace)[0]!;
    const cursor: Cursor = {
      segment: { name: basename(path), firstSeq: 1, path },
      offset: readFileSync(path).length,
      seq: 2,
      prevHash: first.events[0]!.hash,
    };
    for (let i = 0; i < count; i++) await store.append(Array.from({ length: batch }, (_, k) => note(`n${i}-${k}`)));
    await store.close();
    return { workspace, path, cursor };
  }

  function scan(path: string, cursor: Cursor): ReturnType<typeof scanTailLines> {
    const fd = openSync(path, 'r');
    try {
      return scanTailLines(fd, cursor, readFileSync(path).length);
    } finally {
      closeSync(fd);
    }
  }

  it('hands over every appended line, checked, with the cursor after the last', async () => {
    for (const [count, batch] of [
      [7, 1],
      [3, 4],
    ] as const) {
      const { workspace, path, cursor } = await logWith(count, batch);
      const result = scan(path, cursor);
      const stored = storedEvents(workspace);
      expect(result?.events).toEqual(stored.slice(1));
      expect(result?.cursor).toEqual({ segment: cursor.segment, offset: readFileSync(path).length, seq: 2 + count * batch, prevHash: stored.at(-1)!.hash });
    }
  });

  it('leaves every other shape to the full scan: a batch without its last line or whose lines disagree on batch_end, bytes after the last newline, a broken seal, seq or prev', async () => {
    const batch = await logWith(1, 3);
    const lines = readFileSync(batch.path, 'utf8').split('\n');
    // The batch's last line cut off, as by a crash between its lines' writes (all but the last are whole).
    writeFileSync(batch.path, lines.slice(0, -2).join('\n') + '\n');
    expect(scan(batch.path, batch.cursor)).toBeUndefined();

    const torn = await logWith(2);
    appendFileSync(torn.path, '{"v":1,"seq":4');
    expect(scan(torn.path, torn.cursor)).toBeUndefined();

    const sealed = await logWith(2);
    writeFileSync(sealed.path, readFileSync(sealed.path, 'utf8').replace('"text":"n1-0"', '"text":"N1-0"'));
    expect(scan(sealed.path, sealed.cursor)).toBeUndefined();

    // A batch whose lines disagree on batch_end, each line sealed and chained (only the rule is broken).
    const mixed = await logWith(1, 3);
    const [first, ...rest] = storedEvents(mixed.workspace);
    let prev = first!.hash;
    const resealed = [serializeEvent(first!)];
    for (const event of rest) {
      const { hash: _old, ...unsealed } = event;
      const sealed = sealEvent({ ...unsealed, prev, ...(event.seq === 3 ? { batch_end: 3 } : {}) });
      resealed.push(sealed.line);
      prev = sealed.event.hash;
    }
    writeFileSync(mixed.path, resealed.join('\n') + '\n');
    expect(scan(mixed.path, mixed.cursor)).toBeUndefined();

    const ahead = await logWith(2);
    expect(scan(ahead.path, { ...ahead.cursor, seq: 3 })).toBeUndefined();
    expect(scan(ahead.path, { ...ahead.cursor, prevHash: '0'.repeat(64) })).toBeUndefined();
  });
});
