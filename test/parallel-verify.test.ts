import { appendFileSync, cpSync, existsSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import fc from 'fast-check';
import { z } from 'zod';
import { EventEmitter } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defineEvent } from '../events/catalog.js';
import { StoredEventSchema, type NewEvent } from '../events/envelope.js';
import { createCatalog } from '../events/index.js';
import { LogVerificationEnvelope } from '../src/app/envelopes/foundation.js';
import { isBatonError } from '../src/errors.js';
import { ChainChecker } from '../src/store/chain-checker.js';
import type { VerifyReport } from '../src/store/contract.js';
import { hashEvent, serializeEvent } from '../src/store/hash.js';
import { JsonlEventStore, type JsonlStoreOptions } from '../src/store/jsonl/jsonl-store.js';
import { segmentName } from '../src/store/jsonl/layout.js';
import { mergeRanges, planRanges, workerCount } from '../src/store/jsonl/parallel-verify.js';
import { listSegments } from '../src/store/jsonl/segment-scan.js';
import { checkRange } from '../src/store/jsonl/verify-range.js';
import { batonIn, jsonLines } from './helpers/cli.js';
import { forgeEvents, linesOf } from './helpers/forge.js';
import { logDir, makeTempDir, removeTempDirs, segmentPaths, storedEvents } from './helpers/workspace.js';

/**
 * verify() on worker threads (src/store/jsonl/parallel-verify.ts) must give exactly the serial
 * verify's report — ok or first_bad with the same seq, offset, segment and reason, the same
 * head_seq and checked — whatever is wrong with the log. Multi-segment logs are built through the
 * store (with multi-event batches), given an unfinished batch or a torn line at the end or not,
 * then broken at random: a flipped byte, a deleted, swapped or duplicated line, a truncated
 * segment, a segment renamed to another first seq.
 */
afterAll(() => removeTempDirs());

const catalog = createCatalog();

/** Two valid logs of 300 events: many small segments, and a few segments of several ranges each. */
const BASES = [
  { name: 'many segments', segmentBytes: 3_000 },
  { name: 'few large segments', segmentBytes: 40_000 },
] as const;
const baseDirs: string[] = [];

beforeAll(async () => {
  for (const base of BASES) {
    const dir = makeTempDir('baton-pverify-base-');
    const store = new JsonlEventStore(dir, { catalog, segmentBytes: base.segmentBytes, now: () => '2026-03-01T10:00:00.000Z' });
    let n = 0;
    let call = 0;
    while (n < 300) {
      // Single events and batches of 2-7 (every event of a multi-event batch carries batch_end).
      const size = call % 3 === 0 ? 1 + (call % 7) : 1;
      const events: NewEvent[] = Array.from({ length: size }, (_, i) => ({
        type: 'note.recorded',
        stream: `note/s${(n + i) % 4}`,
        data: { text: `${(n + i) % 5 === 0 ? 'naïve café ✓ 日本 ' : ''}note ${n + i} ${'x'.repeat((n * 7 + i * 13) % 90)}` },
      }));
      await store.append(events);
      n += size;
      call += 1;
    }
    await store.close();
    baseDirs.push(dir);
  }
  expect(segmentPaths(baseDirs[0]!).length).toBeGreaterThan(20);
  expect(segmentPaths(baseDirs[1]!).length).toBeGreaterThanOrEqual(3);
  expect(storedEvents(baseDirs[1]!).some((e) => e.batch_end !== undefined)).toBe(true);
}, 120_000);

type Tail = 'none' | 'torn' | 'unfinished-batch' | 'unfinished-batch-then-torn';
type Corruption =
  | { kind: 'none' }
  | { kind: 'flip'; at: number; xor: number }
  | { kind: 'delete'; line: number }
  | { kind: 'duplicate'; line: number }
  | { kind: 'swap'; a: number; b: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'rename'; segment: number; delta: number }
  /** An event rewritten with its hash recomputed: its text changed (the next line's prev breaks) or its prev. */
  | { kind: 'reseal'; line: number; field: 'text' | 'prev' };

const tailArb = fc.constantFrom<Tail>('none', 'torn', 'unfinished-batch', 'unfinished-batch-then-torn');
const position = fc.nat({ max: 1_000_000_000 });
const corruptionArb: fc.Arbitrary<Corruption> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.record({ kind: fc.constant('flip' as const), at: position, xor: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant('delete' as const), line: position }),
  fc.record({ kind: fc.constant('duplicate' as const), line: position }),
  fc.record({ kind: fc.constant('swap' as const), a: position, b: position }),
  fc.record({ kind: fc.constant('truncate' as const), at: position }),
  fc.record({ kind: fc.constant('rename' as const), segment: position, delta: fc.constantFrom(-3, -1, 1, 2, 1000) }),
  fc.record({ kind: fc.constant('reseal' as const), line: position, field: fc.constantFrom<'text' | 'prev'>('text', 'prev') }),
);

/** A copy of a base log with the tail and the corruption applied. */
function brokenLog(base: number, tail: Tail, corruption: Corruption): string {
  const dir = makeTempDir('baton-pverify-');
  cpSync(baseDirs[base]!, dir, { recursive: true });
  const paths = segmentPaths(dir);
  const last = paths.at(-1)!;
  if (tail !== 'none') {
    const events = storedEvents(dir);
    const head = { seq: events.at(-1)!.seq, hash: events.at(-1)!.hash };
    if (tail.startsWith('unfinished-batch')) appendFileSync(last, linesOf(forgeEvents(head, 2, { text: 'unfinished', batchSize: 4 })));
    if (tail.endsWith('torn')) appendFileSync(last, linesOf(forgeEvents({ seq: head.seq + 2, hash: head.hash }, 1, { text: 'torn' })).subarray(0, 57));
  }
  const files = paths.map((path) => ({ path, bytes: readFileSync(path) }));
  const total = files.reduce((sum, f) => sum + f.bytes.length, 0);
  /** The file holding byte `at` of the whole log, and the offset in it. */
  const locate = (at: number): { file: (typeof files)[number]; offset: number } => {
    let offset = at % total;
    for (const file of files) {
      if (offset < file.bytes.length) return { file, offset };
      offset -= file.bytes.length;
    }
    throw new Error('unreachable');
  };
  /** Every line (its bytes with the newline) of every file, and which file it is in. */
  const lines = files.flatMap((file, f) => {
    const out: { f: number; bytes: Buffer }[] = [];
    for (let start = 0; start < file.bytes.length;) {
      const nl = file.bytes.indexOf(0x0a, start);
      const end = nl < 0 ? file.bytes.length : nl + 1;
      out.push({ f, bytes: file.bytes.subarray(start, end) });
      start = end;
    }
    return out;
  });
  const rewrite = (edited: { f: number; bytes: Buffer }[]): void => {
    files.forEach((file, f) => writeFileSync(file.path, Buffer.concat(edited.filter((l) => l.f === f).map((l) => l.bytes))));
  };
  switch (corruption.kind) {
    case 'none':
      break;
    case 'flip': {
      const { file, offset } = locate(corruption.at);
      const bytes = Buffer.from(file.bytes);
      bytes[offset] = bytes[offset]! ^ corruption.xor;
      writeFileSync(file.path, bytes);
      break;
    }
    case 'delete':
    case 'duplicate': {
      const at = corruption.line % lines.length;
      const edited = [...lines];
      if (corruption.kind === 'delete') edited.splice(at, 1);
      else edited.splice(at, 0, lines[at]!);
      rewrite(edited);
      break;
    }
    case 'swap': {
      const a = corruption.a % lines.length;
      const b = corruption.b % lines.length;
      const edited = lines.map((line, i) => (i === a ? { f: line.f, bytes: lines[b]!.bytes } : i === b ? { f: line.f, bytes: lines[a]!.bytes } : line));
      rewrite(edited);
      break;
    }
    case 'truncate': {
      const { file, offset } = locate(corruption.at);
      truncateSync(file.path, offset);
      break;
    }
    case 'reseal': {
      const sound = lines.flatMap((line, i) => (line.bytes.at(-1) === 0x0a ? [i] : []));
      const at = sound[corruption.line % sound.length]!;
      const event = StoredEventSchema.parse(JSON.parse(lines[at]!.bytes.toString('utf8')));
      const changed = corruption.field === 'text' ? { ...event, data: { text: 'rewritten' } } : { ...event, prev: event.hash };
      const line = serializeEvent({ ...changed, hash: hashEvent(changed) }) + '\n';
      rewrite(lines.map((l, i) => (i === at ? { f: l.f, bytes: Buffer.from(line, 'utf8') } : l)));
      break;
    }
    case 'rename': {
      const path = paths[corruption.segment % paths.length]!;
      const firstSeq = Number(basename(path).slice(0, 12));
      const target = join(dirname(path), segmentName(Math.max(1, firstSeq + corruption.delta)));
      if (!existsSync(target)) renameSync(path, target);
      break;
    }
  }
  return dir;
}

function serialVerify(dir: string): Promise<VerifyReport> {
  return new JsonlEventStore(dir, { catalog, parallelVerifyMinBytes: Number.POSITIVE_INFINITY }).verify();
}

describe('parallel verify gives the serial report', () => {
  it('for ranges checked on their own and merged in log order (random range sizes: one to dozens of ranges per segment)', async () => {
    let bad = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 1 }),
        tailArb,
        corruptionArb,
        fc.integer({ min: 40, max: 5_000 }),
        async (base, tail, corruption, rangeBytes) => {
          const dir = brokenLog(base, tail, corruption);
          try {
            const serial = await serialVerify(dir);
            const plan = planRanges(listSegments(logDir(dir)), () => rangeBytes);
            const merged = await mergeRanges(plan, (range) => checkRange(range, new ChainChecker(catalog, 'first-line')));
            // The ranges answer for the committed lines; the store then names an uncommitted tail itself, either way.
            const committed = serial.first_bad?.tail !== undefined ? { ...serial, ok: true, first_bad: null } : serial;
            expect(merged).toEqual(committed);
            // toEqual ignores key order; the CLI prints the report as JSON.
            expect(JSON.stringify(merged)).toBe(JSON.stringify(committed));
            if (!serial.ok) bad += 1;
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 200 },
    );
    // The corruptions do break logs (most of them).
    expect(bad).toBeGreaterThan(60);
  });

  it('on worker threads, with the built-in catalog of either kind (several ranges per segment)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), tailArb, corruptionArb, async (compiled, tail, corruption) => {
        const dir = brokenLog(1, tail, corruption);
        try {
          const serial = await serialVerify(dir);
          // Without a catalog the store uses the compiled one; with createCatalog() the zod one.
          const options: JsonlStoreOptions = { parallelVerifyMinBytes: 0, parallelVerifyRangeBytes: 1, ...(compiled ? {} : { catalog }) };
          const store = new JsonlEventStore(dir, options);
          const report = await store.verify();
          expect(store.lastVerify?.mode).toBe('parallel');
          expect(store.lastVerify!.ranges).toBeGreaterThan(segmentPaths(dir).length);
          expect(store.lastVerify!.workers).toBe(Math.min(workerCount(), store.lastVerify!.ranges));
          expect(report).toEqual(serial);
          expect(JSON.stringify(report)).toBe(JSON.stringify(serial));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      {
        numRuns: 10,
        // Every kind of damage at least once, beside the random ones.
        examples: [
          [true, 'none', { kind: 'none' }],
          [false, 'unfinished-batch-then-torn', { kind: 'flip', at: 50_000, xor: 4 }],
          [true, 'torn', { kind: 'swap', a: 100, b: 101 }],
          [false, 'none', { kind: 'rename', segment: 1, delta: 1 }],
          [true, 'unfinished-batch', { kind: 'truncate', at: 30_000 }],
        ],
      },
    );
  });
});

describe('when verify stays serial', () => {
  it('a log below parallelVerifyMinBytes (default 32 MiB) is checked in this thread', async () => {
    const store = new JsonlEventStore(baseDirs[1]!, { catalog });
    expect(await store.verify()).toEqual(await serialVerify(baseDirs[1]!));
    expect(store.lastVerify).toEqual({ mode: 'serial', workers: 0, ranges: 0 });
  });

  it('a catalog a worker cannot rebuild (extra event types) is checked in this thread, with the same report', async () => {
    const extra = defineEvent({ type: 'test.extra', schema: z.strictObject({}), streams: ['test'], description: 'an event type of the caller' });
    const store = new JsonlEventStore(baseDirs[1]!, { catalog: createCatalog([extra]), parallelVerifyMinBytes: 0 });
    expect(await store.verify()).toEqual(await serialVerify(baseDirs[1]!));
    expect(store.lastVerify?.mode).toBe('serial');
    expect(store.lastVerify?.fallback).toMatch(/catalog/);
  });

  it('a worker that fails to start, or dies, leaves the answer to the serial verify', async () => {
    const dir = brokenLog(1, 'unfinished-batch', { kind: 'reseal', line: 150, field: 'text' });
    const serial = await serialVerify(dir);
    expect(serial.ok).toBe(false);
    for (const failure of ['error', 'exit'] as const) {
      /** A Worker that cannot load its script, or that exits after asking for work. */
      class FailingWorker extends EventEmitter {
        constructor() {
          super();
          setImmediate(() =>
            failure === 'error'
              ? this.emit('error', new Error('Cannot find module verify-worker.js'))
              : (this.emit('message', { kind: 'ready' }), this.emit('exit', 1)),
          );
        }
        postMessage(): void {}
        terminate(): Promise<number> {
          return Promise.resolve(1);
        }
      }
      vi.resetModules();
      vi.doMock('node:worker_threads', () => ({ Worker: FailingWorker }));
      try {
        // A fresh module graph that imports the mock (its own default, compiled catalog).
        const { JsonlEventStore: Store } = await import('../src/store/jsonl/jsonl-store.js');
        const store = new Store(dir, { parallelVerifyMinBytes: 0 });
        expect(await store.verify()).toEqual(serial);
        expect(store.lastVerify?.mode).toBe('serial');
        expect(store.lastVerify?.fallback).toMatch(failure === 'error' ? /Cannot find module/ : /exited early/);
      } finally {
        vi.doUnmock('node:worker_threads');
        vi.resetModules();
      }
    }
  });

  it('refuses a threshold or range size that is not a byte count', () => {
    for (const options of [
      { parallelVerifyMinBytes: -1 },
      { parallelVerifyMinBytes: Number.NaN },
      { parallelVerifyRangeBytes: 0 },
      { parallelVerifyRangeBytes: 1.5 },
    ]) {
      let error: unknown;
      try {
        new JsonlEventStore(baseDirs[1]!, options);
      } catch (e) {
        error = e;
      }
      expect(isBatonError(error) && error.code).toBe('INVALID_INPUT');
    }
  });
});

describe('baton log verify', () => {
  /** A copy of the few-segment log with one byte of an event's text changed in its second segment. */
  function tampered(): { dir: string; seq: number } {
    const dir = makeTempDir('baton-pverify-cli-');
    cpSync(baseDirs[1]!, dir, { recursive: true });
    const path = segmentPaths(dir)[1]!;
    const bytes = readFileSync(path);
    const at = bytes.indexOf('"text":"note ', Math.floor(bytes.length / 2)) + '"text":"note '.length;
    const lineStart = bytes.lastIndexOf(0x0a, at) + 1;
    bytes[at] = bytes[at] === 0x35 ? 0x36 : 0x35;
    writeFileSync(path, bytes);
    const seq = Number(/"seq":(\d+)/.exec(bytes.toString('utf8', lineStart, lineStart + 40))![1]);
    return { dir, seq };
  }

  const BATON_NOW = '2026-03-02T08:00:00Z';

  it('above BATON_PARALLEL_VERIFY_MIN_BYTES uses the bundled worker and names the tampered line (exit 3)', async () => {
    const { dir, seq } = tampered();
    const serial = await serialVerify(dir);
    expect(serial.first_bad?.seq).toBe(seq);
    expect(serial.first_bad?.reason).toMatch(/hash does not match/);
    // NODE_DEBUG=worker makes Node log each worker it starts, with its script, on stderr.
    const run = await batonIn(dir, ['log', 'verify', '--json'], { env: { BATON_PARALLEL_VERIFY_MIN_BYTES: '0', NODE_DEBUG: 'worker', BATON_NOW } });
    expect(run.code).toBe(3);
    const out = LogVerificationEnvelope.parse(jsonLines(run.stdout)[0]);
    expect({ ok: out.ok, head_seq: out.head_seq, checked: out.checked, first_bad: out.first_bad }).toEqual(serial);
    const started = run.stderr.split('\n').filter((line) => /instantiating Worker\. url: file:\/\/\S*\/dist\/bin\/verify-worker\.js /.test(line));
    expect(started.length).toBe(Math.min(workerCount(), segmentPaths(dir).length));

    // Below the threshold (the default, 32 MiB): the same answer, no worker.
    const plain = await batonIn(dir, ['log', 'verify', '--json'], { env: { NODE_DEBUG: 'worker', BATON_NOW } });
    expect(plain.code).toBe(3);
    expect(jsonLines(plain.stdout)[0]).toEqual(jsonLines(run.stdout)[0]);
    expect(plain.stderr).not.toMatch(/verify-worker/);
  });

  it('refuses a BATON_PARALLEL_VERIFY_MIN_BYTES that is not a byte count (exit 2)', async () => {
    const run = await batonIn(baseDirs[1]!, ['log', 'verify', '--json'], { env: { BATON_PARALLEL_VERIFY_MIN_BYTES: '32MB' } });
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/BATON_PARALLEL_VERIFY_MIN_BYTES/);
  });
});
