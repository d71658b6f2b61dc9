import { closeSync, createReadStream, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { BatonError, ErrorCode } from '../errors.js';
import { fileKind } from './file-kind.js';
import { pathProblem } from './path-problem.js';

/**
 * Every file and stdin Baton reads as input goes through here, so one rule holds for all of them:
 *
 * - A path (not `-`) must be a regular file, or a named pipe; anything else (a folder, a character
 *   device like /dev/zero or /dev/full, a socket) is refused before it is opened, naming the path
 *   and what it is. A named pipe is read only when the user named it (a folder's listing never
 *   hands one out), and stdin is read whatever it is: a terminal is a character device too.
 * - Reading stops at a limit: the whole input (`fileBytes`) and each line (`lineBytes`, the newline
 *   not counted). Past either, the read is abandoned: exit 2 INVALID_INPUT naming the flag or
 *   argument, the path, the limit and how much was read. Without limits, /dev/zero or an endless
 *   pipe grew the process until the kernel killed it.
 */
export interface InputLimits {
  /** The whole input, in bytes. */
  fileBytes?: number;
  /** One line, in bytes, its newline not counted. */
  lineBytes?: number;
}

const MiB = 1024 * 1024;

/** The limits of each kind of input (docs/cli.md: "Input limits"). */
export const INPUT_LIMITS = {
  /** `log append --events`: every line is parsed and checked before the first append, so all of it is held at once. */
  events: { fileBytes: 64 * MiB, lineBytes: 1 * MiB },
  /** A WU YAML file (work-units.md §4: at most 1 MiB), an initiative or a LumenFlow workspace.yaml: a file that big has no longer line. */
  yaml: { fileBytes: 1 * MiB },
  /**
   * `log import`: the export is streamed into the store line by line, so only a line is held and
   * its length alone is limited. A line is one stored event, which no schema caps at 1 MiB (a
   * definition from a 1 MiB WU YAML can be longer once escaped as JSON): 16 MiB takes any of them.
   */
  exportLine: { lineBytes: 16 * MiB },
  /** LumenFlow's `wu-events.jsonl`, read whole like `--events`. */
  lumenflowEvents: { fileBytes: 64 * MiB, lineBytes: 1 * MiB },
  /** A done stamp (two short lines), found by listing a stamps folder: one that is not a file, or is bigger, is skipped as an unreadable one is. */
  stamp: { fileBytes: 1 * MiB },
  /** The workspace's `.gitignore`, which `init` reads to say whether it ignores `.baton/`. */
  gitignore: { fileBytes: 16 * MiB },
  /** A client hook's JSON document on stdin (a tool's whole output may be in it). */
  hookInput: { fileBytes: 64 * MiB },
} as const satisfies Record<string, InputLimits>;

/** An input refused by its kind or its size; `reason` is the message without the flag and path. */
export class InputRefused extends BatonError {
  constructor(
    readonly field: string,
    readonly shown: string,
    readonly reason: string,
    details: Record<string, unknown> = {},
  ) {
    super(ErrorCode.INVALID_INPUT, `${field}: ${shown}: ${reason}`, { field, ...details });
  }
}

/** `"path"`, or `stdin` for `-`. */
function shownAs(path: string): string {
  return path === '-' ? 'stdin' : `"${path}"`;
}

function bytes(n: number): string {
  return n >= MiB && n % MiB === 0 ? `${n / MiB} MiB` : `${n.toLocaleString('en-US')} bytes`;
}

/** Counts what is read and throws the moment a limit is passed. */
class InputMeter {
  private total = 0;
  private line = 1;
  private lineLength = 0;

  constructor(
    private readonly field: string,
    private readonly path: string,
    private readonly limits: InputLimits,
  ) {}

  add(chunk: Buffer): void {
    this.total += chunk.length;
    const { fileBytes, lineBytes } = this.limits;
    if (fileBytes !== undefined && this.total > fileBytes) {
      throw this.refuse(`is over the ${bytes(fileBytes)} limit of the whole input (stopped after reading ${this.total.toLocaleString('en-US')} bytes)`, {
        limit_bytes: fileBytes,
        read_bytes: this.total,
      });
    }
    if (lineBytes === undefined) return;
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
      this.checkLine(this.lineLength + nl - start, lineBytes);
      this.line += 1;
      this.lineLength = 0;
      start = nl + 1;
    }
    this.lineLength += chunk.length - start;
    this.checkLine(this.lineLength, lineBytes);
  }

  private checkLine(length: number, limit: number): void {
    if (length <= limit) return;
    throw this.refuse(`line ${this.line} is over the ${bytes(limit)} limit of a line (stopped after reading ${length.toLocaleString('en-US')} bytes of it)`, {
      line: this.line,
      limit_bytes: limit,
      read_bytes: length,
    });
  }

  refuse(reason: string, details: Record<string, unknown>): InputRefused {
    return new InputRefused(this.field, shownAs(this.path), reason, { ...(this.path === '-' ? {} : { path: this.path }), ...details });
  }
}

export interface OpenOptions {
  /** A named pipe is read only when the user named it; a file found by listing a folder is never one. */
  namedPipe?: 'read' | 'refuse';
}

/** Refuse what is neither a regular file nor (when allowed) a named pipe. */
function checkKind(stats: Stats, field: string, path: string, options: OpenOptions): void {
  if (stats.isFile() || (stats.isFIFO() && options.namedPipe !== 'refuse')) return;
  if (stats.isDirectory()) throw new InputRefused(field, shownAs(path), 'is a folder, not a file', { path, kind: 'folder' });
  throw new InputRefused(field, shownAs(path), `is ${fileKind(stats)}, not a file${options.namedPipe === 'refuse' ? '' : ' or a named pipe'}`, {
    path,
    kind: fileKind(stats).replace(/^an? /, ''),
  });
}

/** A file-system error on the path, as exit 2 naming the field and the path, with the errno in the details. */
function fileSystemRefusal(error: unknown, field: string, path: string): InputRefused {
  const errno = (error as NodeJS.ErrnoException).code;
  return new InputRefused(field, shownAs(path), pathProblem(error, 'read'), { path, ...(errno ? { errno } : {}) });
}

/**
 * Open a path the user named (never `-`) for reading, after checking what it is. Looked at before
 * the open (opening some devices acts) and again after it, on the descriptor, in case the path was
 * replaced in between.
 */
function openChecked(path: string, field: string, options: OpenOptions): { fd: number; stats: Stats } {
  let fd: number;
  try {
    checkKind(statSync(path), field, path, options);
    fd = openSync(path, 'r');
  } catch (error) {
    throw error instanceof InputRefused ? error : fileSystemRefusal(error, field, path);
  }
  try {
    const stats = fstatSync(fd);
    checkKind(stats, field, path, options);
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error instanceof InputRefused ? error : fileSystemRefusal(error, field, path);
  }
}

const CHUNK_BYTES = 1 * MiB;

/**
 * Read `fd` to its end into `chunks`, through the meter. 'again' when the descriptor is
 * non-blocking and has nothing yet (stdin a pipe some parents open that way): the caller goes on
 * with a stream.
 */
function readToEnd(fd: number, meter: InputMeter, chunks: Buffer[], field: string, path: string, sizeHint?: number): 'end' | 'again' {
  // A regular file's size (one byte more, to see it end) is all a small file needs.
  const scratch = Buffer.allocUnsafe(sizeHint === undefined ? CHUNK_BYTES : Math.min(sizeHint + 1, CHUNK_BYTES));
  for (;;) {
    let got: number;
    try {
      got = readSync(fd, scratch, 0, scratch.length, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return 'again';
      throw fileSystemRefusal(error, field, path);
    }
    if (got === 0) return 'end';
    // A copy: a pipe hands out 64 KiB at a time, and a slice would keep the whole 1 MiB alive.
    const read = Buffer.from(scratch.subarray(0, got));
    meter.add(read);
    chunks.push(read);
  }
}

/**
 * The bytes of a file at `path` (not `-`), within `limits`. Synchronous: a regular file never
 * blocks, and a named pipe blocks only as long as the user's writer does.
 */
export function readInputFile(path: string, field: string, limits: InputLimits, options: OpenOptions = {}): Buffer {
  const { fd, stats } = openChecked(path, field, options);
  const meter = new InputMeter(field, path, limits);
  try {
    // A regular file says its size: one over the limit is refused without reading it.
    if (stats.isFile() && limits.fileBytes !== undefined && stats.size > limits.fileBytes) {
      throw meter.refuse(`is over the ${bytes(limits.fileBytes)} limit of the whole input (it is ${stats.size.toLocaleString('en-US')} bytes)`, {
        limit_bytes: limits.fileBytes,
        size_bytes: stats.size,
      });
    }
    const chunks: Buffer[] = [];
    if (readToEnd(fd, meter, chunks, field, path, stats.isFile() ? stats.size : undefined) === 'again')
      throw fileSystemRefusal(Object.assign(new Error('is not ready to be read (EAGAIN)'), { code: 'EAGAIN' }), field, path);
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  } finally {
    closeSync(fd);
  }
}

/**
 * The bytes of `path`, or of stdin for `-` (whatever stdin is: a pipe, a file, a terminal), within
 * `limits`. Stdin is read synchronously as readFileSync(0) did (no stream to set up for a short
 * command), and through process.stdin when its descriptor is non-blocking.
 */
export async function readInput(path: string, field: string, limits: InputLimits): Promise<Buffer> {
  if (path !== '-') return readInputFile(path, field, limits);
  const meter = new InputMeter(field, path, limits);
  const chunks: Buffer[] = [];
  if (readToEnd(0, meter, chunks, field, path) === 'again') {
    // Leaving the loop early (a limit passed) destroys the stream: nothing more is read.
    for await (const chunk of process.stdin as AsyncIterable<Buffer | string>) {
      const read = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      meter.add(read);
      chunks.push(read);
    }
  }
  return Buffer.concat(chunks);
}

/** A stream of `path` (checked and opened now, so a refusal comes before anything else), or stdin for `-`. */
export function openInputStream(path: string, field: string): NodeJS.ReadableStream {
  if (path === '-') return process.stdin;
  const { fd } = openChecked(path, field, {});
  return createReadStream(path, { fd });
}

/**
 * The lines of a stream (without their newlines; a last line without one included when it is not
 * empty), each decoded as UTF-8, within `limits`: a line over its limit is refused as soon as that
 * many bytes of it have arrived, before it is held whole.
 */
export async function* inputLines(source: NodeJS.ReadableStream, path: string, field: string, limits: InputLimits): AsyncGenerator<string> {
  const meter = new InputMeter(field, path, limits);
  let carry: Buffer[] = [];
  for await (const data of source as AsyncIterable<Buffer | string>) {
    const chunk = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    meter.add(chunk);
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, nl);
      // Splitting on the newline byte never cuts a UTF-8 character (no multi-byte one contains 0x0a).
      yield (carry.length === 0 ? piece : Buffer.concat([...carry, piece])).toString('utf8');
      carry = [];
      start = nl + 1;
    }
    if (start < chunk.length) carry.push(chunk.subarray(start));
  }
  if (carry.length > 0) yield Buffer.concat(carry).toString('utf8');
}
