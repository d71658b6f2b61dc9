import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { isAsciiBlock, lineText } from '../src/store/jsonl/line-text.js';

// Reads decode a block's lines as Latin-1 when the whole block is ASCII (line-text.ts). These
// pin that choice to UTF-8 decoding: any text, ASCII or not, alone in a block or mixed, reads back
// as it was written, by a full read and by a handle catching up at the tail.

const anyText = fc.oneof(
  fc.string({ minLength: 1, maxLength: 30 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
  fc.constantFrom('naïve café', '日本語', '😀 ok', 'ÿ', '\u0080', 'plain ascii'),
);

function block(texts: readonly string[]): { bytes: Buffer; lines: string[] } {
  const lines = texts.map((t) => JSON.stringify({ text: t }));
  return { bytes: Buffer.from(`${lines.join('\n')}\n`, 'utf8'), lines };
}

function decodeAll(bytes: Buffer): string[] {
  const ascii = isAsciiBlock(bytes);
  const out: string[] = [];
  for (let start = 0, nl = bytes.indexOf(0x0a); nl >= 0; start = nl + 1, nl = bytes.indexOf(0x0a, start)) out.push(lineText(bytes, start, nl, ascii));
  return out;
}

describe('line text decoding', () => {
  it('tells ASCII blocks from others', () => {
    expect(isAsciiBlock(Buffer.from('{"a":"b"}\n'))).toBe(true);
    expect(isAsciiBlock(Buffer.from('{"a":"é"}\n'))).toBe(false);
    expect(isAsciiBlock(Buffer.from([0x7f, 0x0a]))).toBe(true);
    expect(isAsciiBlock(Buffer.from([0x80, 0x0a]))).toBe(false);
  });

  it('decodes every line of a block as UTF-8 does, whatever its characters', () => {
    fc.assert(
      fc.property(fc.array(anyText, { minLength: 1, maxLength: 20 }), (texts) => {
        const { bytes, lines } = block(texts);
        expect(decodeAll(bytes)).toEqual(lines);
      }),
      { numRuns: 300 },
    );
  });

  it('decodes ASCII-only blocks (the Latin-1 path) exactly', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 30 }), {
          minLength: 1,
          maxLength: 20,
        }),
        (texts) => {
          const { bytes, lines } = block(texts);
          expect(isAsciiBlock(bytes)).toBe(true);
          expect(decodeAll(bytes)).toEqual(lines);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads back what was appended, by a full read and at the tail, for ASCII and non-ASCII text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyText, { minLength: 1, maxLength: 8 }), fc.array(anyText, { minLength: 1, maxLength: 8 }), async (first, second) => {
        const dir = await mkdtemp(join(tmpdir(), 'baton-line-text-'));
        JsonlEventStore.initWorkspace(dir);
        const writer = new JsonlEventStore(dir);
        const reader = new JsonlEventStore(dir);
        try {
          const texts = async (store: JsonlEventStore, from: number): Promise<unknown[]> => {
            const out: unknown[] = [];
            for await (const e of store.read({ from })) out.push(e.data['text']);
            return out;
          };
          await writer.append(first.map((text) => ({ type: 'note.recorded', stream: 'note/a', data: { text } })));
          expect(await texts(reader, 1)).toEqual(first);
          await writer.append(second.map((text) => ({ type: 'note.recorded', stream: 'note/a', data: { text } })));
          // The reader has a tail past the first batch: it catches up with what follows.
          expect(await texts(reader, first.length + 1)).toEqual(second);
          expect(await texts(new JsonlEventStore(dir), 1)).toEqual([...first, ...second]);
        } finally {
          await writer.close();
          await reader.close();
          await rm(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 25 },
    );
  });
});
