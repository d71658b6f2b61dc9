/**
 * A child process of the `replay` and `verify` benchmarks, so each figure (and the peak resident
 * memory of the replay) belongs to a process that does nothing else. Run with plain node against
 * the compiled code. Usage: read-child.js MODE WORKSPACE, MODE one of
 *   replay        every registered projection folded from scratch over the whole log (the runner)
 *   replay-limit  the machine's limit: 1 MiB chunked read + JSON.parse of every line
 *   verify        the store's verify(): seq, schema, hash chain, canonical bytes, catalog data
 *   verify-limit  the machine's limit: StoredEventSchema (zod) parse alone of every envelope
 * Prints one JSON line: ChildResult.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { StoredEventSchema } from '../events/envelope.js';
import { createCatalog } from '../events/index.js';
import { ALL_PROJECTIONS } from '../projections/index.js';
import { runProjections } from '../src/store/projection-runner.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { listSegments } from '../src/store/jsonl/segment-scan.js';

export interface ChildResult {
  mode: string;
  events: number;
  ms: number;
  /** Peak resident set size of this process (MB), from getrusage. */
  maxRssMB: number;
  /** The same from /proc/self/status VmHWM, where available. */
  vmHwmMB: number | undefined;
  detail: Record<string, unknown>;
}

const CHUNK = 1 << 20;
const NOW = '2025-06-01T00:00:00.000Z';

/** Every complete line of every segment, in order, read in 1 MiB chunks. */
function forEachLine(dir: string, onLine: (text: string) => void): void {
  const chunk = Buffer.allocUnsafe(CHUNK);
  for (const segment of listSegments(new JsonlEventStore(dir).layout.log)) {
    const fd = openSync(segment.path, 'r');
    try {
      let carry: Buffer | undefined;
      let position = 0;
      for (;;) {
        const got = readSync(fd, chunk, 0, CHUNK, position);
        if (got === 0) break;
        position += got;
        const buffer = carry ? Buffer.concat([carry, chunk.subarray(0, got)]) : chunk.subarray(0, got);
        let start = 0;
        for (let nl = buffer.indexOf(0x0a, start); nl >= 0; nl = buffer.indexOf(0x0a, start)) {
          onLine(buffer.toString('utf8', start, nl));
          start = nl + 1;
        }
        carry = start < buffer.length ? Buffer.from(buffer.subarray(start)) : undefined;
      }
    } finally {
      closeSync(fd);
    }
  }
}

async function replay(dir: string): Promise<Omit<ChildResult, 'mode' | 'maxRssMB' | 'vmHwmMB'>> {
  const store = new JsonlEventStore(dir);
  const catalog = createCatalog();
  const start = performance.now();
  const runs = await runProjections(store, ALL_PROJECTIONS, { catalog, now: NOW });
  const ms = performance.now() - start;
  const events = runs[0]?.seq ?? 0;
  await store.close();
  return { events, ms, detail: { projections: ALL_PROJECTIONS.map((p) => p.name) } };
}

function replayLimit(dir: string): Omit<ChildResult, 'mode' | 'maxRssMB' | 'vmHwmMB'> {
  let events = 0;
  let checksum = 0;
  const start = performance.now();
  forEachLine(dir, (text) => {
    const event = JSON.parse(text) as { seq: number };
    checksum += event.seq;
    events += 1;
  });
  const ms = performance.now() - start;
  return { events, ms, detail: { checksum } };
}

async function verify(dir: string): Promise<Omit<ChildResult, 'mode' | 'maxRssMB' | 'vmHwmMB'>> {
  const store = new JsonlEventStore(dir);
  const start = performance.now();
  const report = await store.verify();
  const ms = performance.now() - start;
  await store.close();
  if (!report.ok) throw new Error(`verify failed: ${JSON.stringify(report.first_bad)}`);
  return { events: report.checked, ms, detail: { head_seq: report.head_seq } };
}

/**
 * zod parse alone: lines are read and JSON-parsed 1,000 at a time off the clock, then only the
 * StoredEventSchema parse of those 1,000 is timed.
 */
function verifyLimit(dir: string): Omit<ChildResult, 'mode' | 'maxRssMB' | 'vmHwmMB'> {
  let zodMs = 0;
  let events = 0;
  let batch: unknown[] = [];
  const parseBatch = (): void => {
    const start = performance.now();
    for (const value of batch) {
      if (!StoredEventSchema.safeParse(value).success) throw new Error('fixture envelope failed the schema');
    }
    zodMs += performance.now() - start;
    events += batch.length;
    batch = [];
  };
  const start = performance.now();
  forEachLine(dir, (text) => {
    batch.push(JSON.parse(text));
    if (batch.length === 1000) parseBatch();
  });
  parseBatch();
  const totalMs = performance.now() - start;
  return { events, ms: zodMs, detail: { read_parse_zod_ms: totalMs } };
}

function vmHwmMB(): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

const [mode, dir] = process.argv.slice(2);
if (dir === undefined) {
  console.error('usage: read-child.js (replay|replay-limit|verify|verify-limit) WORKSPACE');
  process.exit(2);
}
const run = { replay, 'replay-limit': replayLimit, verify, 'verify-limit': verifyLimit }[mode as string];
if (!run) {
  console.error(`unknown mode ${mode}`);
  process.exit(2);
}
const result = await run(dir);
const out: ChildResult = { mode: mode!, ...result, maxRssMB: process.resourceUsage().maxRSS / 1024, vmHwmMB: vmHwmMB() };
process.stdout.write(JSON.stringify(out) + '\n');
