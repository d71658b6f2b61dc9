import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { isAsciiBlock, lineText } from './line-text.js';

/**
 * Streams the newline-terminated lines of a file in 1 MiB chunks, with the byte offset of each
 * line; never holds the whole file. Bytes after the last newline (a torn or in-flight write) are
 * not returned as a line: their offset is reported as `tailOffset` so the caller can decide.
 */
export interface Line {
  text: string;
  offset: number;
  /** Byte length including the newline. */
  length: number;
}

/**
 * Complete lines as raw bytes: `bytes` holds one or more whole lines, each ending with `\n`, and
 * `offset` is the file offset of `bytes[0]`. The buffer is the reader's own and is reused by the
 * next read: a caller reads (or briefly patches and restores) it before asking for the next block,
 * and keeps nothing of it.
 */
export interface LineBlock {
  bytes: Buffer;
  offset: number;
}

export const CHUNK_BYTES = 1 << 20;
/** The smallest read buffer (a catch-up at the tail reads a few lines, or nothing). */
const MIN_CHUNK_BYTES = 16 * 1024;
export const NEWLINE = 0x0a;

export class LineReader {
  /** Offset just past the last complete line read so far. */
  tailOffset: number;
  /** Bytes after `tailOffset` that were seen without a newline when the end was reached. */
  tailBytes = 0;

  /** `source` is a path, or an open descriptor the reader borrows (reads by position, never closes it). */
  constructor(
    private readonly source: string | number,
    private readonly start = 0,
    private readonly end = Number.POSITIVE_INFINITY,
  ) {
    this.tailOffset = start;
  }

  /**
   * The file's complete lines, a read buffer at a time (see LineBlock). A line longer than the
   * buffer grows it; the partial line at the end of a read is moved to the buffer's front and
   * completed by the next read, so no line is ever copied twice.
   */
  *blocks(): Generator<LineBlock> {
    const borrowed = typeof this.source === 'number';
    const fd = typeof this.source === 'number' ? this.source : openSync(this.source, 'r');
    try {
      let position = this.start;
      // Size the buffer to what there is to read: a catch-up at the tail (every append does one)
      // must not allocate 1 MiB — that external memory drives frequent full GCs. It grows to
      // CHUNK_BYTES if the file grows while it is read.
      const available = Math.min(fstatSync(fd).size, this.end) - position;
      let chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(MIN_CHUNK_BYTES, available)));
      /** Bytes of an unfinished line at the front of `chunk`. */
      let carry = 0;
      for (;;) {
        if (carry === chunk.length) {
          // One line longer than the buffer: grow it (keeping the partial line).
          const bigger = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, chunk.length * 2));
          chunk.copy(bigger, 0, 0, carry);
          chunk = bigger;
        }
        const want = Math.min(chunk.length - carry, this.end - position);
        if (want <= 0) break;
        const got = readSync(fd, chunk, carry, want, position);
        if (got === 0) break;
        position += got;
        const filled = carry + got;
        const last = chunk.lastIndexOf(NEWLINE, filled - 1);
        if (last >= 0) {
          const complete = last + 1;
          const offset = this.tailOffset;
          this.tailOffset += complete;
          yield { bytes: chunk.subarray(0, complete), offset };
          chunk.copy(chunk, 0, complete, filled);
          carry = filled - complete;
        } else {
          carry = filled;
        }
        if (got === want && chunk.length < CHUNK_BYTES) {
          // The file is larger than the first read guessed: read in full-size chunks from now on.
          const bigger = Buffer.allocUnsafe(CHUNK_BYTES);
          chunk.copy(bigger, 0, 0, carry);
          chunk = bigger;
        }
      }
      this.tailBytes = carry;
    } finally {
      if (!borrowed) closeSync(fd);
    }
  }

  *lines(): Generator<Line> {
    for (const { bytes, offset } of this.blocks()) {
      const ascii = isAsciiBlock(bytes);
      let lineStart = 0;
      for (let nl = bytes.indexOf(NEWLINE, 0); nl >= 0; nl = bytes.indexOf(NEWLINE, lineStart)) {
        yield { text: lineText(bytes, lineStart, nl, ascii), offset: offset + lineStart, length: nl + 1 - lineStart };
        lineStart = nl + 1;
      }
    }
  }
}

/**
 * Whether `needed` more complete lines follow position `from` of the segment: first counted in
 * `bytes` (the read buffer, whose byte 0 is at file offset `bytesOffset`), then, when the batch
 * runs past it, in the file itself (read-ahead in 1 MiB chunks; only newlines are looked at).
 */
export function linesFollow(source: string | number, bytes: Buffer, bytesOffset: number, from: number, needed: number): boolean {
  let count = 0;
  for (let at = bytes.indexOf(NEWLINE, from); at >= 0; at = bytes.indexOf(NEWLINE, at + 1)) {
    if (++count >= needed) return true;
  }
  const fd = typeof source === 'number' ? source : openSync(source, 'r');
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let position = bytesOffset + bytes.length;
    for (;;) {
      const got = readSync(fd, buffer, 0, buffer.length, position);
      if (got === 0) return false;
      const view = buffer.subarray(0, got);
      for (let at = view.indexOf(NEWLINE, 0); at >= 0; at = view.indexOf(NEWLINE, at + 1)) {
        if (++count >= needed) return true;
      }
      position += got;
    }
  } finally {
    if (typeof source !== 'number') closeSync(fd);
  }
}
