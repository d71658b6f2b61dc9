/**
 * A child process of the `wu-status` benchmark: the full rebuild of the work-unit fold, from
 * scratch and in process, alternated with the machine's limit for reading the same log (1 MiB
 * chunked read + JSON.parse of every line). In a process of its own, so the figure is the fold's
 * and not the bench runner's: whatever the runner has loaded for other rows (a browser driver, a
 * database client) sits on the same heap and makes every garbage collection of an in-process fold
 * slower. Run with plain node --expose-gc against the compiled code.
 *   wu-rebuild-child.js WORKSPACE ROUNDS NOW
 * Prints one JSON line: RebuildRounds.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { createCatalog } from '../events/index.js';
import { workUnitsStateProjection } from '../projections/work-units/index.js';
import { openStore } from '../src/store/open-store.js';
import { listSegments } from '../src/store/jsonl/segment-scan.js';
import { runProjection } from '../src/store/projection-runner.js';
import { collectGarbage } from './support.js';

export interface RebuildRounds {
  /** Events folded by each rebuild (the log's head). */
  folded: number;
  /** Lines the limit read and parsed. */
  lines: number;
  rebuildMs: number[];
  limitMs: number[];
}

/** The machine's limit for reading a log: every line of every segment, read in 1 MiB chunks and JSON-parsed. */
function readAndParse(logDir: string): number {
  const chunk = Buffer.allocUnsafe(1 << 20);
  let lines = 0;
  for (const segment of listSegments(logDir)) {
    const fd = openSync(segment.path, 'r');
    try {
      let carry: Buffer | undefined;
      let position = 0;
      for (;;) {
        const got = readSync(fd, chunk, 0, chunk.length, position);
        if (got === 0) break;
        position += got;
        const buffer = carry ? Buffer.concat([carry, chunk.subarray(0, got)]) : chunk.subarray(0, got);
        let start = 0;
        for (let nl = buffer.indexOf(0x0a, start); nl >= 0; nl = buffer.indexOf(0x0a, start)) {
          if ((JSON.parse(buffer.toString('utf8', start, nl)) as { seq: number }).seq > 0) lines += 1;
          start = nl + 1;
        }
        carry = start < buffer.length ? Buffer.from(buffer.subarray(start)) : undefined;
      }
    } finally {
      closeSync(fd);
    }
  }
  return lines;
}

async function main(): Promise<void> {
  const [dir, roundsText, now] = process.argv.slice(2);
  const rounds = Number(roundsText);
  if (dir === undefined || now === undefined || !Number.isSafeInteger(rounds) || rounds < 1) throw new Error('usage: wu-rebuild-child.js WORKSPACE ROUNDS NOW');
  const catalog = createCatalog();
  const store = await openStore({ workspace: dir, config: { kind: 'jsonl' }, catalog, now: () => now, actor: 'bench' });
  const result: RebuildRounds = { folded: 0, lines: 0, rebuildMs: [], limitMs: [] };
  try {
    for (let i = 0; i < rounds; i++) {
      collectGarbage();
      let start = performance.now();
      result.lines = readAndParse(join(dir, '.baton', 'log'));
      result.limitMs.push(performance.now() - start);
      collectGarbage();
      start = performance.now();
      const run = await runProjection(store, workUnitsStateProjection, { catalog, now });
      result.rebuildMs.push(performance.now() - start);
      result.folded = run.seq;
    }
  } finally {
    await store.close();
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
