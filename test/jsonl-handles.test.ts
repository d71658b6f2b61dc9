import { basename } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { NewEvent } from '../events/envelope.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { segmentName } from '../src/store/jsonl/layout.js';
import { makeTempDir, removeTempDirs, segmentPaths } from './helpers/workspace.js';

/**
 * Two handles on one log stand for two processes: each keeps its own idea of the tail between
 * appends, and must catch up with what the other wrote (or rolled) before writing itself.
 */
afterAll(removeTempDirs);

const note = (text: string): NewEvent => ({ type: 'note.recorded', stream: 'note/handles', data: { text } });

async function seqsOf(store: JsonlEventStore): Promise<number[]> {
  const seqs: number[] = [];
  for await (const event of store.read()) seqs.push(event.seq);
  return seqs;
}

describe('handles sharing one log', () => {
  it('a handle appends after what another handle appended to its segment since its own last write', async () => {
    const workspace = makeTempDir();
    const a = new JsonlEventStore(workspace);
    const b = new JsonlEventStore(workspace);
    try {
      await a.append([note('a1')]);
      await a.append([note('a2')]);
      const fromB = await b.append([note('b1'), note('b2')]);
      const next = await a.append([note('a3')]);
      expect(next.events[0]).toMatchObject({ seq: 5, prev: fromB.events[1]!.hash });
      expect(await seqsOf(a)).toEqual([1, 2, 3, 4, 5]);
      expect(await a.verify()).toEqual({ ok: true, head_seq: 5, checked: 5, first_bad: null });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a handle whose segment did not change still follows a roll-over made by another handle (new segment at its tail seq)', async () => {
    const workspace = makeTempDir();
    const a = new JsonlEventStore(workspace);
    // A tiny segment size: b's first append finds a's segment full and starts the next one.
    const b = new JsonlEventStore(workspace, { segmentBytes: 1 });
    try {
      await a.append([note('a1')]);
      await a.append([note('a2')]);
      const fromB = await b.append([note('b1')]);
      expect(segmentPaths(workspace).map((p) => basename(p))).toEqual([segmentName(1), segmentName(3)]);
      // a's segment is exactly as a left it: only the new segment tells that the log moved on.
      const next = await a.append([note('a3')]);
      expect(next.events[0]).toMatchObject({ seq: 4, prev: fromB.events[0]!.hash });
      expect(await seqsOf(a)).toEqual([1, 2, 3, 4]);
      expect(await a.verify()).toEqual({ ok: true, head_seq: 4, checked: 4, first_bad: null });
    } finally {
      await a.close();
      await b.close();
    }
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
});
