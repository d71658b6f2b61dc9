import { createRequire } from 'node:module';
import { writeSync } from 'node:fs';

/**
 * Standard output and error for the CLI without Node's `process.stdout` / `process.stderr`
 * streams, which are costly for a short command to create when stdout is a pipe (a net.Socket over the
 * pipe, with the net and stream modules). Baton prints whole envelopes at once, so it writes them
 * to the descriptor with `fs.writeSync` — what Node's own stdout does for files, and for pipes and
 * terminals on Linux (synchronous there). Should a write not go through at once (EAGAIN: a
 * non-blocking pipe that is full) or fail, the rest of that text and every later write go through
 * Node's stream, exactly as before, so nothing is lost or reordered.
 */
export interface TextSink {
  write(text: string): unknown;
}

export class FdSink implements TextSink {
  private stream: NodeJS.WritableStream | undefined;

  constructor(
    private readonly fd: 1 | 2,
    private readonly fallback: () => NodeJS.WritableStream,
  ) {}

  write(text: string): boolean {
    if (this.stream !== undefined) return this.stream.write(text);
    const bytes = Buffer.from(text, 'utf8');
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written);
      return true;
    } catch {
      this.stream = this.fallback();
      return this.stream.write(bytes.subarray(written));
    }
  }
}

let stdout: FdSink | undefined;
let stderr: FdSink | undefined;

/** One sink per descriptor for the whole process, so a switch to Node's stream holds for every writer. */
export const stdoutSink = (): TextSink => (stdout ??= new FdSink(1, () => process.stdout));
export const stderrSink = (): TextSink => (stderr ??= new FdSink(2, () => process.stderr));

/**
 * `process.stdout.isTTY` without creating `process.stdout`: the same answer (is fd 1 a terminal).
 * The tty module (it loads net) is required only when this is asked: `--json` never asks.
 */
export function stdoutIsTTY(): boolean {
  const { isatty } = createRequire(import.meta.url)('node:tty') as typeof import('node:tty');
  return isatty(1);
}
