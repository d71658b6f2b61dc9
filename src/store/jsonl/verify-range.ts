import type { ChainChecker } from '../chain-checker.js';
import { LineReader } from './line-reader.js';

/**
 * One range of a parallel verify (parallel-verify.ts): the lines of one segment file from byte
 * `start` (a line start) to `end` (just after a newline, or Infinity: to the end of the file as it
 * is when read, as the serial verify reads it).
 */
export interface VerifyRange {
  /** Position in log order, over all segments. */
  index: number;
  path: string;
  start: number;
  end: number;
}

/**
 * What a range says about itself, without knowing what comes before it. Every line is checked
 * like the serial verify checks it, except that the first line's seq and prev are taken as given
 * (the coordinator checks that link); later lines are checked relative to the first.
 */
export interface RangeReport {
  /** Sound lines before the first bad one (all of them when none is bad). */
  lines: number;
  /** The first line's seq and prev, when its envelope parsed (also when it failed a later check). */
  first: { seq: number; prev: string } | undefined;
  /** Hash of the last sound line. */
  lastHash: string | undefined;
  /** Sound lines at the end that are in a multi-event batch not yet ended (serial verify's pendingBatch, counted from 0). */
  trailingPending: number;
  /** Every sound line was in such a batch: the count continues the range before's instead of restarting. */
  allPending: boolean;
  /** Bytes after the last newline, and where they start (only the range that ends its segment can have any). */
  tailBytes: number;
  tailOffset: number;
  /** The first bad line: how many sound lines precede it in the range, its offset, why. */
  bad: { linesBefore: number; offset: number; reason: string } | undefined;
}

/** Check a range with a checker started at 'first-line'; stops at the first bad line. */
export function checkRange(range: VerifyRange, checker: ChainChecker): RangeReport {
  const reader = new LineReader(range.path, range.start, range.end);
  let trailingPending = 0;
  let allPending = true;
  let lastHash: string | undefined;
  for (const line of reader.lines()) {
    const result = checker.check(line.text, line.offset);
    if (!result.ok) {
      const bad = { linesBefore: checker.checked, offset: line.offset, reason: result.bad.reason };
      return { lines: checker.checked, first: checker.first, lastHash, trailingPending, allPending, tailBytes: 0, tailOffset: line.offset, bad };
    }
    const { seq, batch_end: batchEnd } = result.event;
    const inOpenBatch = batchEnd !== undefined && batchEnd > seq;
    trailingPending = inOpenBatch ? trailingPending + 1 : 0;
    allPending &&= inOpenBatch;
    lastHash = result.event.hash;
  }
  return {
    lines: checker.checked,
    first: checker.first,
    lastHash,
    trailingPending,
    allPending,
    tailBytes: reader.tailBytes,
    tailOffset: reader.tailOffset,
    bad: undefined,
  };
}
