import { workerData } from 'node:worker_threads';
import { LineReader, NEWLINE } from './line-reader.js';
import { sealProblem } from './seal.js';
import { BAD_POSITION, CHECKED_TO, GENERATION, POSITION_SPAN, POSITIONS_OFFSET, SealState, STATE, type SealWorkerData } from './seal-protocol.js';

/**
 * The seal worker: checks the seal of every complete line in its ranges, in order, while the
 * reader parses and folds the same lines on the main thread (seal-checker.ts). It publishes how far
 * it got after each block of lines and stops at the first broken seal.
 */
const { ranges, shared } = workerData as SealWorkerData;
const control = new Int32Array(shared, 0, 2);
const positions = new BigInt64Array(shared, POSITIONS_OFFSET, 2);

function setPosition(slot: number, position: number): void {
  Atomics.store(positions, slot, BigInt(position));
}

function publish(state: number): void {
  Atomics.store(control, STATE, state);
  Atomics.add(control, GENERATION, 1);
  Atomics.notify(control, GENERATION);
}

try {
  check();
} catch {
  // Whatever went wrong here, the reader checks what is left itself.
  publish(SealState.FAILED);
}

function check(): void {
  for (let index = 0; index < ranges.length; index++) {
    const range = ranges[index]!;
    const base = index * POSITION_SPAN;
    const reader = new LineReader(range.path, range.start, range.end);
    for (const block of reader.blocks()) {
      const bytes = block.bytes;
      let lineStart = 0;
      for (let nl = bytes.indexOf(NEWLINE, 0); nl >= 0; nl = bytes.indexOf(NEWLINE, lineStart)) {
        if (sealProblem(bytes, lineStart, nl) !== undefined) {
          setPosition(BAD_POSITION, base + block.offset + lineStart);
          setPosition(CHECKED_TO, base + block.offset + lineStart);
          publish(SealState.BAD);
          return;
        }
        lineStart = nl + 1;
      }
      setPosition(CHECKED_TO, base + block.offset + lineStart);
      publish(SealState.RUNNING);
    }
    setPosition(CHECKED_TO, base + POSITION_SPAN);
    publish(SealState.RUNNING);
  }
  publish(SealState.DONE);
}
