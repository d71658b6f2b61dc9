import { describe, expect, it } from 'vitest';
import { createCatalog } from '../../events/index.js';
import type { Decision } from '../../deciders/decision.js';
import { Refusal } from '../../deciders/refusal.js';
import { BatonError, ConflictError } from '../../src/errors.js';
import { handleCommand, MAX_RETRIES } from '../../src/store/handle-command.js';
import { MemoryEventStore } from '../../src/store/memory-store.js';

/** The one command handler: read, decide, append with the decided versions, decide again after a lost race. */
const NOW = '2026-06-01T10:00:00.000Z';
const catalog = createCatalog();
const note = (text: string) => ({ type: 'note.recorded', stream: 'note/n', data: { text } });

function setup() {
  const store = new MemoryEventStore({ catalog, now: () => NOW });
  let reads = 0;
  const io = { store, catalog, actor: 'session_me', now: NOW, read: async () => ({ reads: ++reads, version: await store.streamVersion('note/n') }) };
  const appendNote =
    (text: string) =>
    ({ version }: { version: number }): Decision<string> => ({ events: [note(text)], expected: { 'note/n': version }, outcome: text });
  return { store, io, appendNote, reads: () => reads };
}

describe('handleCommand', () => {
  it('appends the decision with the actor and time of the command', async () => {
    const { store, io, appendNote } = setup();
    const handled = await handleCommand(io, appendNote('a'));
    expect(handled.appended.map((e) => [e.type, e.actor, e.at, e.data])).toEqual([['note.recorded', 'session_me', NOW, { text: 'a' }]]);
    expect((await store.head()).seq).toBe(1);
  });

  it('after a lost race, reads and decides again on the new state', async () => {
    const { store, io, appendNote, reads } = setup();
    let raced = false;
    const handled = await handleCommand(io, (state) => {
      if (!raced) {
        raced = true;
        // Another writer lands between this read and the append.
        void store.append([note('other')]);
      }
      return appendNote('mine')(state);
    });
    expect(reads()).toBe(2);
    expect(handled.appended[0]!.seq).toBe(2);
  });

  it(`gives up with CONFLICT after ${MAX_RETRIES} retries`, async () => {
    const { store, io, appendNote, reads } = setup();
    await expect(
      handleCommand(io, (state) => {
        void store.append([note('always first')]);
        return appendNote('never')(state);
      }),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(reads()).toBe(MAX_RETRIES + 1);
  });

  it('a refusal reaches the caller as a BatonError with its code and writes nothing; null appends nothing', async () => {
    const { store, io } = setup();
    const refused = handleCommand(io, () => {
      throw new Refusal('UNKNOWN_TASK', 'Task task_x not found', { task_id: 'task_x' });
    });
    await expect(refused).rejects.toBeInstanceOf(BatonError);
    await expect(refused).rejects.toMatchObject({ code: 'UNKNOWN_TASK', exitCode: 2, details: { task_id: 'task_x' } });
    expect((await handleCommand(io, () => null)).appended).toEqual([]);
    expect((await store.head()).seq).toBe(0);
  });
});
