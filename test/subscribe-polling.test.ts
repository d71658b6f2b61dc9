import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../events/envelope.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-poll-'));
  dirs.push(dir);
  JsonlEventStore.initWorkspace(dir);
  return dir;
}

const note = (text: string) => ({ type: 'note.recorded', stream: 'note/poll', data: { text } });

async function waitFor(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('JSONL subscribe without fs.watch', () => {
  it('delivers events appended by another handle through polling alone, in order, each once', async () => {
    const dir = workspace();
    const writer = new JsonlEventStore(dir);
    const reader = new JsonlEventStore(dir, { useFsWatch: false, pollIntervalMs: 40 });
    await writer.append([note('before')]);
    const seen: StoredEvent[] = [];
    const sub = reader.subscribe(1, (event) => {
      seen.push(event);
    });
    await sub.caughtUp;
    expect(seen.map((e) => e.seq)).toEqual([1]);
    for (let i = 0; i < 5; i++) await writer.append([note(`live ${i}`)]);
    await writer.append([note('batch a'), note('batch b')]);
    await waitFor(() => seen.length >= 8);
    // Give a few more polls the chance to deliver a duplicate.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await sub.close();
    await writer.append([note('after close')]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen).toHaveLength(8);
    await writer.close();
    await reader.close();
  });
});
