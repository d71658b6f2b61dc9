import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineEvent, EventCatalog } from '../events/catalog.js';
import type { StoredEvent } from '../events/envelope.js';
import { NoteRecordedData } from '../events/note.js';
import { GENESIS_HASH } from '../events/patterns.js';
import { createCatalog } from '../events/index.js';
import { isBatonError } from '../src/errors.js';
import { hashEvent, serializeEvent } from '../src/store/hash.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { segmentName, workspaceLayout } from '../src/store/jsonl/layout.js';
import { MemoryEventStore } from '../src/store/memory-store.js';
import { sealedNote } from './helpers/forge.js';

/**
 * Legacy shapes are upcast on read, never rewritten: a test-only catalog whose `note.recorded` has
 * an upcaster from an old shape `{ note }` to today's `{ text }`, applied to history written in
 * the old shape.
 */

/** The old writer's definition: `note.recorded` carried its words under `note`. */
const legacyNoteRecorded = defineEvent({
  type: 'note.recorded',
  schema: z.strictObject({ note: z.string().min(1) }),
  streams: ['note'],
  description: 'note.recorded as an older writer stored it.',
});

/** Lifts `{ note }` to `{ text }`; anything else (today's shape included) passes through untouched. */
function upcastLegacyNote(data: Record<string, unknown>): Record<string, unknown> {
  if (typeof data['note'] === 'string' && !('text' in data)) {
    const { note, ...rest } = data;
    return { ...rest, text: note };
  }
  return data;
}

const noteRecordedWithUpcaster = defineEvent({
  type: 'note.recorded',
  schema: NoteRecordedData,
  streams: ['note'],
  description: 'note.recorded today, reading the legacy { note } shape as { text }.',
  upcasters: [upcastLegacyNote],
});

const legacyCatalog = EventCatalog.of([legacyNoteRecorded]);
const todayCatalog = EventCatalog.of([noteRecordedWithUpcaster]);

/** A stored line in the legacy shape, built by hand exactly as an old writer would have stored it. */
function legacyEvent(seq: number, prev: string, words: string): StoredEvent {
  return sealedNote({ seq, id: opsId(seq), stream: 'note/ops', at: '2023-03-04T05:06:07.089Z', data: { note: words }, prev });
}

function todayEvent(seq: number, prev: string, text: string): StoredEvent {
  return sealedNote({ seq, id: opsId(seq), stream: 'note/ops', at: '2024-03-04T05:06:07.089Z', data: { text }, prev });
}

function opsId(seq: number): string {
  return `01HZZZZZZZZZZZZZZZZZZZZZ${String(seq).padStart(2, '0')}`;
}

async function readAll(store: { read(): AsyncIterable<StoredEvent> }): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of store.read()) out.push(e);
  return out;
}

describe('upcasting legacy shapes on read', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A JSONL workspace whose log holds `events`, written by hand; returns the segment path. */
  function workspaceWith(events: readonly StoredEvent[]): { dir: string; segment: string } {
    const dir = mkdtempSync(join(tmpdir(), 'baton-upcast-'));
    dirs.push(dir);
    JsonlEventStore.initWorkspace(dir);
    const segment = join(workspaceLayout(dir).log, segmentName(1));
    writeFileSync(segment, events.map((e) => serializeEvent(e) + '\n').join(''), { mode: 0o600 });
    return { dir, segment };
  }

  it("decodes a legacy note.recorded { note } written by an old writer as today's { text }, leaving the stored event as it was", async () => {
    const oldWriter = new MemoryEventStore({ catalog: legacyCatalog });
    await oldWriter.append([{ type: 'note.recorded', stream: 'note/ops', data: { note: 'written long ago' } }]);
    const [stored] = await readAll(oldWriter);
    const bytesBefore = serializeEvent(stored!);

    const decoded = todayCatalog.decode(stored!);

    expect(decoded).toEqual({ ok: true, event: { ...stored!, data: { text: 'written long ago' } } });
    // What a fold's runner calls: the same event, upcast and checked, without the result around it.
    expect(todayCatalog.accept(stored!)).toEqual({ ...stored!, data: { text: 'written long ago' } });
    expect(stored!.data).toEqual({ note: 'written long ago' });
    expect(serializeEvent(stored!)).toBe(bytesBefore);
    expect(hashEvent(stored!)).toBe(stored!.hash);
  });

  it('keeps the legacy bytes on disk unchanged through read, decode and verify, and verify passes', async () => {
    const first = legacyEvent(1, GENESIS_HASH, 'legacy words');
    const second = todayEvent(2, first.hash, 'current words');
    const { dir, segment } = workspaceWith([first, second]);
    const bytesBefore = readFileSync(segment);
    const store = new JsonlEventStore(dir, { catalog: todayCatalog });
    try {
      expect(await store.verify()).toEqual({ ok: true, head_seq: 2, checked: 2, first_bad: null });
      const stored = await readAll(store);
      expect(stored).toEqual([first, second]);
      expect(stored[0]!.data).toEqual({ note: 'legacy words' });
      const decoded = stored.map((e) => todayCatalog.decode(e));
      expect(decoded.map((d) => (d.ok ? d.event.data : d.reason))).toEqual([{ text: 'legacy words' }, { text: 'current words' }]);
      // Appending after the legacy history chains onto its stored hash.
      const next = await store.append([{ type: 'note.recorded', stream: 'note/ops', data: { text: 'new' } }]);
      expect(next.events[0]!.prev).toBe(second.hash);
      expect(await store.verify()).toEqual({ ok: true, head_seq: 3, checked: 3, first_bad: null });
    } finally {
      await store.close();
    }
    expect(readFileSync(segment).subarray(0, bytesBefore.length).equals(bytesBefore)).toBe(true);
  });

  it('fails decode and verify on the same legacy history without the upcaster (control)', async () => {
    const first = legacyEvent(1, GENESIS_HASH, 'legacy words');
    const { dir } = workspaceWith([first]);
    const decoded = createCatalog().decode(first);
    expect(decoded.ok).toBe(false);
    expect(createCatalog().accept(first)).toBeUndefined();
    expect(createCatalog().accept({ ...first, type: 'no.such_type' })).toBeUndefined();
    expect(decoded.ok ? undefined : decoded.reason).toBe('invalid_data');
    const store = new JsonlEventStore(dir);
    try {
      const report = await store.verify();
      expect(report.ok).toBe(false);
      expect(report.first_bad?.seq).toBe(1);
      expect(report.first_bad?.reason).toContain('data invalid for note.recorded');
    } finally {
      await store.close();
    }
  });

  it("leaves today's shape unchanged when decoding", () => {
    const current = todayEvent(1, GENESIS_HASH, 'already current');
    const decoded = todayCatalog.decode(current);
    expect(decoded).toEqual({ ok: true, event: current });
  });

  it('decodes every envelope shape (idempotency key, batch_end, both, neither) into the same envelope, key for key and in order', () => {
    const base = todayEvent(1, GENESIS_HASH, 'in a batch');
    const shapes: StoredEvent[] = [base, { ...base, idempotency_key: 'k-1' }, { ...base, batch_end: 3 }, { ...base, idempotency_key: 'k-2', batch_end: 3 }];
    for (const stored of shapes) {
      // In the stored (canonical) order: idempotency_key and batch_end between data and prev.
      const canonical = Object.fromEntries(
        ['v', 'seq', 'id', 'type', 'stream', 'at', 'actor', 'data', 'idempotency_key', 'batch_end', 'prev', 'hash']
          .filter((k) => k in stored)
          .map((k) => [k, stored[k as keyof StoredEvent]]),
      );
      const accepted = createCatalog().accept(canonical as StoredEvent);
      expect(JSON.stringify(accepted)).toBe(JSON.stringify(canonical));
    }
  });

  it('imports legacy history into a store with the upcasting catalog unchanged, and verify passes', async () => {
    const first = legacyEvent(1, GENESIS_HASH, 'legacy one');
    const second = legacyEvent(2, first.hash, 'legacy two');
    const store = new MemoryEventStore({ catalog: todayCatalog });
    async function* exported(): AsyncIterable<StoredEvent> {
      yield structuredClone(first);
      yield structuredClone(second);
    }
    expect(await store.importLog(exported())).toEqual({ seq: 2, hash: second.hash });
    expect((await readAll(store)).map(serializeEvent)).toEqual([serializeEvent(first), serializeEvent(second)]);
    expect(await store.verify()).toEqual({ ok: true, head_seq: 2, checked: 2, first_bad: null });
  });

  it('refuses new appends in the legacy shape: upcasting is for reading history only', async () => {
    const store = new MemoryEventStore({ catalog: todayCatalog });
    const error = await store.append([{ type: 'note.recorded', stream: 'note/ops', data: { note: 'old habits' } }]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isBatonError(error) ? error.code : error).toBe('INVALID_INPUT');
    expect(isBatonError(error) ? error.message : '').toContain('data');
    expect((await store.head()).seq).toBe(0);
  });
});
