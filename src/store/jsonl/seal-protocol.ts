/**
 * What the reader and its seal worker share (seal-checker.ts, seal-worker.ts): the byte ranges to
 * check, and progress in a SharedArrayBuffer, so the reader can wait for it synchronously in the
 * middle of a generator (Atomics.wait) instead of through messages it could only see between turns.
 *
 * A position is `range index × POSITION_SPAN + byte offset` in that range's file: one number that
 * grows through the ranges in log order.
 */
export interface SealRange {
  path: string;
  /** First byte to check (a line start). */
  start: number;
  /** Check only complete lines ending at or before this byte (the file's size when the read began). */
  end: number;
}

export interface SealWorkerData {
  ranges: SealRange[];
  shared: SharedArrayBuffer;
}

export const POSITION_SPAN = 2 ** 40;

export const SealState = {
  RUNNING: 0,
  /** Every line of every range checked and sound. */
  DONE: 1,
  /** The line at BAD_POSITION has a broken seal; every line before it is sound. */
  BAD: 2,
  /** The worker could not go on (an I/O error): the reader checks the rest itself. */
  FAILED: 3,
} as const;

/** Int32 slots: a generation counter (bumped on every update, what Atomics.wait watches) and the state. */
export const GENERATION = 0;
export const STATE = 1;
/**
 * BigInt64 slots from byte POSITIONS_OFFSET, read and written with Atomics (never torn): checked up
 * to (exclusive: every line before is sound), and the start of the bad line (state BAD).
 */
export const POSITIONS_OFFSET = 8;
export const CHECKED_TO = 0;
export const BAD_POSITION = 1;
export const SHARED_BYTES = 24;
