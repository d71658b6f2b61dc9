import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

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

export const CHUNK_BYTES = 1 << 20;
/** The smallest read buffer (a catch-up at the tail reads a few lines, or nothing). */
const MIN_CHUNK_BYTES = 16 * 1024;
const NEWLINE = 0x0a;

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

  *lines(): Generator<Line> {
    const borrowed = typeof this.source === 'number';
    const fd = typeof this.source === 'number' ? this.source : openSync(this.source, 'r');
    try {
      let position = this.start;
      let carry: Buffer = Buffer.alloc(0);
      // Size the buffer to what there is to read: a catch-up at the tail (every append does one)
      // must not allocate 1 MiB — that external memory drives frequent full GCs. It grows to
      // CHUNK_BYTES if the file grows while it is read.
      const available = Math.min(fstatSync(fd).size, this.end) - position;
      let chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(MIN_CHUNK_BYTES, available)));
      for (;;) {
        const want = Math.min(chunk.length, this.end - position);
        if (want <= 0) break;
        const got = readSync(fd, chunk, 0, want, position);
        if (got === 0) break;
        position += got;
        let buffer: Buffer = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, got)]) : chunk.subarray(0, got);
        let lineStart = 0;
        for (;;) {
          const nl = buffer.indexOf(NEWLINE, lineStart);
          if (nl < 0) break;
          const length = nl + 1 - lineStart;
          const line: Line = { text: buffer.toString('utf8', lineStart, nl), offset: this.tailOffset, length };
          this.tailOffset += length;
          lineStart = nl + 1;
          yield line;
        }
        // Copy the remainder: `chunk` is reused by the next read.
        buffer = buffer.subarray(lineStart);
        carry = Buffer.from(buffer);
        if (got === chunk.length && chunk.length < CHUNK_BYTES) chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      }
      this.tailBytes = carry.length;
    } finally {
      if (!borrowed) closeSync(fd);
    }
  }
}
