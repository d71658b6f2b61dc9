import { closeSync, openSync, readSync } from 'node:fs';

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
const NEWLINE = 0x0a;

export class LineReader {
  /** Offset just past the last complete line read so far. */
  tailOffset: number;
  /** Bytes after `tailOffset` that were seen without a newline when the end was reached. */
  tailBytes = 0;

  constructor(
    private readonly path: string,
    private readonly start = 0,
    private readonly end = Number.POSITIVE_INFINITY,
  ) {
    this.tailOffset = start;
  }

  *lines(): Generator<Line> {
    const fd = openSync(this.path, 'r');
    try {
      let position = this.start;
      let carry: Buffer = Buffer.alloc(0);
      const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      for (;;) {
        const want = Math.min(CHUNK_BYTES, this.end - position);
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
      }
      this.tailBytes = carry.length;
    } finally {
      closeSync(fd);
    }
  }
}
