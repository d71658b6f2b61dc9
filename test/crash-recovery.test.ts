import { spawn } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewEvent, StoredEvent } from '../events/envelope.js';
import type { LogRecoveredData } from '../events/log.js';
import { isBatonError } from '../src/errors.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { segmentName } from '../src/store/jsonl/layout.js';
import { batonIn, jsonLines } from './helpers/cli.js';
import { forgeEvents, linesOf, seededRandom, type ChainHead } from './helpers/forge.js';
import { makeTempDir, quarantineDir, removeTempDirs, segmentBytes, segmentPaths, storedEvents } from './helpers/workspace.js';

/**
 * Crash safety of the JSONL store with real processes: a child appends in a loop and is killed
 * with SIGKILL at a random moment; every append it reported as done must survive, the log must
 * verify, and the next append must succeed. A SIGKILL almost never tears a write() (the kernel
 * finishes a small write before the process dies), so the torn writes a power loss or a full disk
 * would leave are also made by hand, between kills: bytes after the last newline, and the complete
 * lines of a batch whose last line never made it.
 */

const FIXTURE = fileURLToPath(new URL('./fixtures/append-loop.ts', import.meta.url));
/** Small segments, so the growing logs roll over many segment files. */
const SEGMENT_BYTES = 4 * 1024;
const WORKSPACES = 5;
const KILLS_PER_WORKSPACE = 10;

let childScript = '';

beforeAll(async () => {
  // Bundle the child once: a plain .mjs starts in a fraction of the time `node --import tsx` takes.
  const outDir = makeTempDir('baton-crash-fixture-');
  childScript = join(outDir, 'append-loop.mjs');
  await build({
    entryPoints: [FIXTURE],
    outfile: childScript,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    banner: { js: "import { createRequire as __fixtureRequire } from 'node:module'; const require = __fixtureRequire(import.meta.url);" },
  });
});

afterAll(() => removeTempDirs());

interface ChildReport {
  kind: 'append' | 'retry';
  key: string | null;
  events: NewEvent[];
  seqs: number[];
  hashes: string[];
  deduplicated: boolean;
}

interface Retry {
  key: string;
  events: NewEvent[];
  seqs: number[];
  hashes: string[];
}

/** Run the append loop; SIGKILL it `delayMs` after its first report. Returns its complete report lines. */
async function appendUntilKilled(workspace: string, tag: string, delayMs: number, retry: Retry | undefined): Promise<ChildReport[]> {
  const args = [childScript, workspace, tag, String(SEGMENT_BYTES), retry ? JSON.stringify({ key: retry.key, events: retry.events }) : ''];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let killTimer: NodeJS.Timeout | undefined;
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    stdout += chunk;
    if (killTimer === undefined && stdout.includes('\n')) killTimer = setTimeout(() => child.kill('SIGKILL'), delayMs);
  });
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  // A child that never reports is killed too, and the trial fails below.
  const guard = setTimeout(() => child.kill('SIGKILL'), 40_000);
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (c, s) => resolve({ code: c, signal: s })),
  );
  clearTimeout(guard);
  if (killTimer !== undefined) clearTimeout(killTimer);
  if (signal !== 'SIGKILL' || killTimer === undefined) {
    throw new Error(`append child ${tag} ended without being killed after a report (code ${code}, signal ${signal}): ${stderr}`);
  }
  const lines = stdout.split('\n');
  lines.pop(); // '' after the last newline (a line cut by the kill would be dropped here too)
  return lines.map((line) => JSON.parse(line) as ChildReport);
}

async function readAll(store: JsonlEventStore): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const event of store.read()) out.push(event);
  return out;
}

function note(text: string, stream = 'note/parent'): NewEvent {
  return { type: 'note.recorded', stream, data: { text } };
}

function isInjected(event: StoredEvent): boolean {
  return typeof event.data['text'] === 'string' && event.data['text'].startsWith('INJECTED');
}

type InjectionKind = 'torn_tail' | 'incomplete_batch' | 'incomplete_batch_torn';

interface Injection {
  kind: InjectionKind;
  segment: string;
  offset: number;
  bytes: Buffer;
  linesDropped: number;
  headSeq: number;
}

/** Append what a crashed writer would leave to the end of the last segment. */
function injectTornWrite(workspace: string, kind: InjectionKind, head: ChainHead, random: () => number, label: string): Injection {
  const last = segmentPaths(workspace).at(-1)!;
  const offset = statSync(last).size;
  const text = `INJECTED ${label}`;
  let bytes: Buffer;
  let linesDropped = 0;
  if (kind === 'torn_tail') {
    const line = linesOf(forgeEvents(head, 1, { text }));
    bytes = line.subarray(0, 1 + Math.floor(random() * (line.length - 2)));
  } else {
    const batchSize = 3 + Math.floor(random() * 3);
    const complete = 1 + Math.floor(random() * (batchSize - 1));
    const events = forgeEvents(head, batchSize, { text, batchSize });
    bytes = linesOf(events.slice(0, complete));
    linesDropped = complete;
    if (kind === 'incomplete_batch_torn') {
      const next = linesOf([events[complete]!]);
      bytes = Buffer.concat([bytes, next.subarray(0, 1 + Math.floor(random() * (next.length - 2)))]);
    }
  }
  appendFileSync(last, bytes);
  return { kind, segment: basename(last), offset, bytes, linesDropped, headSeq: head.seq };
}

interface CrashStats {
  reportedAppends: number;
  events: number;
  segments: number;
  injections: number;
  /** Torn writes a kill itself left (rare), recovered by the parent's append. */
  tornByKill: number;
}

/** One workspace: KILLS_PER_WORKSPACE kill trials on one growing log, each reopening and continuing it. */
async function crashLoop(w: number, seed: number): Promise<CrashStats> {
  const random = seededRandom(seed);
  const where = `(workspace ${w}, seed ${seed})`;
  const workspace = makeTempDir('baton-crash-');
  JsonlEventStore.initWorkspace(workspace);
  const reported = new Map<number, string>();
  const keyed: Retry[] = [];
  let pending: Injection | undefined;
  const stats: CrashStats = { reportedAppends: 0, events: 0, segments: 0, injections: 0, tornByKill: 0 };

  for (let t = 0; t < KILLS_PER_WORKSPACE; t++) {
    const tag = `w${w}t${t}`;
    const retry = keyed.length > 0 && random() < 0.3 ? keyed[Math.floor(random() * keyed.length)] : undefined;
    const delay = 20 + Math.floor(random() * 281);
    const reports = await appendUntilKilled(workspace, tag, delay, retry);
    stats.reportedAppends += reports.length;

    // A keyed append reported by an earlier (killed) child is recognised after reopening.
    if (retry && reports.length > 0) {
      expect(reports[0], `retry of ${retry.key} ${where}`).toMatchObject({ kind: 'retry', deduplicated: true, seqs: retry.seqs, hashes: retry.hashes });
    }
    for (const report of reports) {
      report.seqs.forEach((seq, i) => {
        const known = reported.get(seq);
        if (known !== undefined) expect(report.hashes[i], `seq ${seq} reported twice with different hashes ${where}`).toBe(known);
        reported.set(seq, report.hashes[i]!);
      });
      if (report.kind === 'append' && report.key !== null) keyed.push({ key: report.key, events: report.events, seqs: report.seqs, hashes: report.hashes });
    }

    const recoveredByParent: LogRecoveredData[] = [];
    const store = new JsonlEventStore(workspace, { segmentBytes: SEGMENT_BYTES, onRecovered: (r) => recoveredByParent.push(r) });
    const before = await readAll(store);
    // Every append the child reported as done survived the kill, with the hash it was given.
    expect(
      before.map((e) => e.seq),
      `contiguous seqs ${where}`,
    ).toEqual(before.map((_, i) => i + 1));
    for (const [seq, hash] of reported) expect(before[seq - 1]?.hash, `reported seq ${seq} after kill ${t} ${where}`).toBe(hash);
    expect(before.filter(isInjected), `a torn line was read as an event ${where}`).toEqual([]);

    const appended = await store.append([note(`parent after ${tag}`)]);
    const after = await readAll(store);
    expect(appended.events[0]!.seq).toBe(after.length);
    expect(after.filter(isInjected)).toEqual([]);
    // Whatever the parent recovered was torn by the kill itself: moved aside whole, never dropped.
    for (const r of recoveredByParent) {
      expect(statSync(join(workspace, '.baton', r.quarantined_to)).size, `quarantine of a kill-torn write ${where}`).toBe(r.bytes);
      stats.tornByKill += 1;
    }
    const recoveries = after.filter((e) => e.type === 'log.recovered');
    expect(recoveries, `one log.recovered per torn write ${where}`).toHaveLength(stats.injections + stats.tornByKill);

    if (pending) {
      // The child's first append (always done before the kill) quarantined the torn write.
      const recovery = after[pending.headSeq];
      expect(recovery?.type, `log.recovered for the ${pending.kind} before trial ${t} ${where}`).toBe('log.recovered');
      expect(recovery!.data).toEqual({
        reason: pending.linesDropped > 0 ? 'incomplete_batch' : 'torn_tail',
        segment: pending.segment,
        offset: pending.offset,
        bytes: pending.bytes.length,
        quarantined_to: expect.stringMatching(/^quarantine\/[^/]+\.torn$/),
        lines_dropped: pending.linesDropped,
      });
      const quarantined = readFileSync(join(workspace, '.baton', String(recovery!.data['quarantined_to'])));
      expect(quarantined.equals(pending.bytes), `quarantined bytes ${where}`).toBe(true);
    }

    const report = await store.verify();
    expect(report, `verify after kill ${t} ${where}`).toEqual({ ok: true, head_seq: after.length, checked: after.length, first_bad: null });
    await store.close();
    stats.events = after.length;

    pending = undefined;
    if (t < KILLS_PER_WORKSPACE - 1 && random() < 0.4) {
      const kinds: InjectionKind[] = ['torn_tail', 'incomplete_batch', 'incomplete_batch_torn'];
      const last = after.at(-1)!;
      pending = injectTornWrite(workspace, kinds[Math.floor(random() * kinds.length)]!, { seq: last.seq, hash: last.hash }, random, tag);
      stats.injections += 1;
      // Until an append recovers it, the torn write is invisible to head and reads; verify names it (never "ok").
      const reader = new JsonlEventStore(workspace);
      expect(await reader.head()).toEqual({ seq: last.seq, hash: last.hash });
      expect((await readAll(reader)).length).toBe(last.seq);
      expect(await reader.verify()).toEqual({
        ok: false,
        head_seq: last.seq,
        checked: last.seq,
        first_bad: { seq: last.seq + 1, offset: pending.offset, segment: pending.segment, reason: expect.stringContaining('torn write'), tail: 'torn' },
      });
      await reader.close();
    }
  }
  stats.segments = segmentPaths(workspace).length;
  return stats;
}

describe('crash recovery with SIGKILLed appenders', () => {
  it('every append reported before a SIGKILL survives it, and the reopened log recovers, accepts appends and verifies (50 kills)', async () => {
    const baseSeed = Number(process.env['CRASH_SEED'] ?? Date.now() % 1_000_000);
    const stats = await Promise.all(Array.from({ length: WORKSPACES }, (_, w) => crashLoop(w, baseSeed + w)));
    const total = stats.reduce(
      (sum, s) => ({
        reportedAppends: sum.reportedAppends + s.reportedAppends,
        events: sum.events + s.events,
        segments: sum.segments + s.segments,
        injections: sum.injections + s.injections,
        tornByKill: sum.tornByKill + s.tornByKill,
      }),
      { reportedAppends: 0, events: 0, segments: 0, injections: 0, tornByKill: 0 },
    );
    // The kills landed while the children were appending (each kill follows a report), on logs
    // that rolled over segments (a trial writes at least two ~280-byte lines, so ten fill 4 KB).
    expect(total.reportedAppends).toBeGreaterThanOrEqual(WORKSPACES * KILLS_PER_WORKSPACE);
    expect(total.segments).toBeGreaterThan(WORKSPACES);
    console.info(`crash trials (seed ${baseSeed}): ${JSON.stringify(total)}`);
  }, 150_000);
});

describe('recovery from a torn write', () => {
  const fixedClock = (): string => '2026-03-01T10:00:00.000Z';

  /** A log of 5 events (a batch of 3, then 2 single appends). */
  async function seedLog(options: { segmentBytes?: number } = {}): Promise<{ workspace: string; head: ChainHead; committed: Buffer }> {
    const workspace = makeTempDir('baton-torn-');
    const store = new JsonlEventStore(workspace, { now: fixedClock, ...options });
    await store.append([note('one', 'note/a'), note('two', 'note/b'), note('three', 'note/a')]);
    await store.append([note('four')]);
    const last = await store.append([note('five')]);
    await store.close();
    return { workspace, head: { seq: 5, hash: last.events[0]!.hash }, committed: segmentBytes(workspace) };
  }

  /** Readers see exactly the committed log: read, readLines, head, verify and a subscription. */
  async function expectOnlyCommitted(workspace: string, head: ChainHead, committed: Buffer, tail: 'torn' | 'unterminated_event' = 'torn'): Promise<void> {
    const reader = new JsonlEventStore(workspace);
    expect((await readAll(reader)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5].slice(0, head.seq));
    const lines: string[] = [];
    for await (const { line } of reader.readLines()) lines.push(`${line}\n`);
    expect(lines.join('')).toBe(committed.toString('utf8'));
    expect(await reader.head()).toEqual(head);
    // Never "ok" while torn bytes follow the log: named at the seq they would have been, as a torn tail.
    expect(await reader.verify()).toMatchObject({ ok: false, head_seq: head.seq, checked: head.seq, first_bad: { seq: head.seq + 1, tail } });
    const delivered: number[] = [];
    const subscription = reader.subscribe(1, (event) => {
      delivered.push(event.seq);
    });
    await subscription.caughtUp;
    await subscription.close();
    expect(delivered).toEqual([1, 2, 3, 4, 5].slice(0, head.seq));
    await reader.close();
  }

  function quarantineFiles(workspace: string): string[] {
    return readdirSync(quarantineDir(workspace)).sort();
  }

  it('a torn last line is invisible to readers, then quarantined byte for byte and recorded as log.recovered by the next append', async () => {
    const { workspace, head, committed } = await seedLog();
    const segment = segmentPaths(workspace)[0]!;
    const torn = linesOf(forgeEvents(head, 1, { text: 'INJECTED torn' })).subarray(0, 120);
    appendFileSync(segment, torn);

    await expectOnlyCommitted(workspace, head, committed);
    expect(quarantineFiles(workspace)).toEqual([]);

    const reports: LogRecoveredData[] = [];
    const writer = new JsonlEventStore(workspace, { now: fixedClock, onRecovered: (r) => reports.push(r) });
    const result = await writer.append([note('after the crash')]);
    expect(result.events[0]!.seq).toBe(7);
    const events = await readAll(writer);
    const recovered = events[5]!;
    expect(recovered).toMatchObject({ seq: 6, type: 'log.recovered', stream: 'log/recovery', actor: 'system', prev: head.hash });
    const [file] = quarantineFiles(workspace);
    expect(recovered.data).toEqual({
      reason: 'torn_tail',
      segment: segmentName(1),
      offset: committed.length,
      bytes: torn.length,
      quarantined_to: `quarantine/${file}`,
      lines_dropped: 0,
    });
    expect(reports).toEqual([recovered.data]);
    expect(quarantineFiles(workspace)).toHaveLength(1);
    expect(readFileSync(join(quarantineDir(workspace), file!)).equals(torn)).toBe(true);
    // The committed bytes were never touched; the torn ones are gone from the segment.
    const now = segmentBytes(workspace);
    expect(now.subarray(0, committed.length).equals(committed)).toBe(true);
    expect(now.includes(torn)).toBe(false);
    expect(await writer.verify()).toEqual({ ok: true, head_seq: 7, checked: 7, first_bad: null });
    await writer.close();
  });

  it('the complete lines of a batch whose last line is missing are invisible to readers, then quarantined together (incomplete_batch)', async () => {
    const { workspace, head, committed } = await seedLog();
    const segment = segmentPaths(workspace)[0]!;
    const batch = forgeEvents(head, 3, { text: 'INJECTED batch', batchSize: 3 });
    const partial = linesOf(batch.slice(0, 2));
    appendFileSync(segment, partial);
    // The two lines are complete, chained and schema-valid; only batch_end (8) says they are unfinished.
    expect(batch[0]!.batch_end).toBe(8);

    await expectOnlyCommitted(workspace, head, committed);

    const reports: LogRecoveredData[] = [];
    const writer = new JsonlEventStore(workspace, { now: fixedClock, onRecovered: (r) => reports.push(r) });
    await writer.append([note('after the crash')]);
    const events = await readAll(writer);
    expect(events.map((e) => e.type)).toEqual([...Array<string>(5).fill('note.recorded'), 'log.recovered', 'note.recorded']);
    expect(events.filter(isInjected)).toEqual([]);
    // seq 6 is reused by the recovery event: the dropped lines were never part of the log.
    expect(events[5]!.hash).not.toBe(batch[0]!.hash);
    const [file] = quarantineFiles(workspace);
    expect(events[5]!.data).toEqual({
      reason: 'incomplete_batch',
      segment: segmentName(1),
      offset: committed.length,
      bytes: partial.length,
      quarantined_to: `quarantine/${file}`,
      lines_dropped: 2,
    });
    expect(reports).toEqual([events[5]!.data]);
    expect(readFileSync(join(quarantineDir(workspace), file!)).equals(partial)).toBe(true);
    expect(await writer.verify()).toMatchObject({ ok: true, head_seq: 7 });
    await writer.close();
  });

  it('a batch cut inside its last line is quarantined as one incomplete_batch: its complete lines and the torn bytes', async () => {
    const { workspace, head, committed } = await seedLog();
    const segment = segmentPaths(workspace)[0]!;
    const batch = forgeEvents(head, 4, { text: 'INJECTED cut batch', batchSize: 4 });
    const lastLine = linesOf([batch[3]!]);
    const written = Buffer.concat([linesOf(batch.slice(0, 3)), lastLine.subarray(0, lastLine.length - 2)]); // the last line cut inside its JSON
    appendFileSync(segment, written);

    await expectOnlyCommitted(workspace, head, committed);

    const writer = new JsonlEventStore(workspace, { now: fixedClock });
    await writer.append([note('after the crash')]);
    const events = await readAll(writer);
    const [file] = quarantineFiles(workspace);
    expect(events[5]!.data).toEqual({
      reason: 'incomplete_batch',
      segment: segmentName(1),
      offset: committed.length,
      bytes: written.length,
      quarantined_to: `quarantine/${file}`,
      lines_dropped: 3,
    });
    expect(readFileSync(join(quarantineDir(workspace), file!)).equals(written)).toBe(true);
    expect(await writer.verify()).toMatchObject({ ok: true, head_seq: 7 });
    await writer.close();
  });

  it('a batch whose last line lacks only its newline is whole (it may have been acknowledged): the newline is restored and all its events kept', async () => {
    const { workspace, head, committed } = await seedLog();
    const segment = segmentPaths(workspace)[0]!;
    const batch = forgeEvents(head, 4, { text: 'INJECTED whole batch', batchSize: 4 });
    const whole = linesOf(batch);
    appendFileSync(segment, whole.subarray(0, whole.length - 1));

    await expectOnlyCommitted(workspace, head, committed, 'unterminated_event');

    const writer = new JsonlEventStore(workspace, { now: fixedClock });
    await writer.append([note('after the crash')]);
    const events = await readAll(writer);
    expect(events.slice(5, 9)).toEqual(batch);
    expect(events[9]).toMatchObject({
      seq: 10,
      type: 'log.repaired',
      data: { reason: 'newline_missing', seq: 9, offset: committed.length + whole.length - 1, replaced: null },
    });
    expect(quarantineFiles(workspace)).toEqual([]);
    expect(
      segmentBytes(workspace)
        .subarray(0, committed.length + whole.length)
        .equals(Buffer.concat([committed, whole])),
    ).toBe(true);
    expect(await writer.verify()).toMatchObject({ ok: true, head_seq: 11 });
    await writer.close();
  });

  it('torn bytes alone in a freshly rolled segment are quarantined from offset 0 of that segment', async () => {
    const { workspace, head, committed } = await seedLog();
    const rolled = join(segmentPaths(workspace)[0]!, '..', segmentName(6));
    const torn = linesOf(forgeEvents(head, 1, { text: 'INJECTED rolled' })).subarray(0, 77);
    writeFileSync(rolled, torn, { mode: 0o600 });

    await expectOnlyCommitted(workspace, head, committed);

    const writer = new JsonlEventStore(workspace, { now: fixedClock });
    const result = await writer.append([note('after the crash')]);
    expect(result.events[0]!.seq).toBe(7);
    const events = await readAll(writer);
    const [file] = quarantineFiles(workspace);
    expect(events[5]!.data).toEqual({
      reason: 'torn_tail',
      segment: segmentName(6),
      offset: 0,
      bytes: torn.length,
      quarantined_to: `quarantine/${file}`,
      lines_dropped: 0,
    });
    expect(events[5]!.prev).toBe(head.hash);
    expect(readFileSync(join(quarantineDir(workspace), file!)).equals(torn)).toBe(true);
    expect(await writer.verify()).toMatchObject({ ok: true, head_seq: 7 });
    await writer.close();
  });

  it('a recovery cut short after quarantining (before truncating) is completed by the next append, even with the same fixed clock', async () => {
    const { workspace, head } = await seedLog();
    const segment = segmentPaths(workspace)[0]!;
    const torn = linesOf(forgeEvents(head, 1, { text: 'INJECTED twice' })).subarray(0, 90);
    appendFileSync(segment, torn);
    const tornSegment = readFileSync(segment);

    const first = new JsonlEventStore(workspace, { now: fixedClock });
    await first.append([note('first try')]);
    await first.close();
    expect(quarantineFiles(workspace)).toHaveLength(1);
    // Put the segment back as the crash left it: the bytes are quarantined but not yet cut.
    writeFileSync(segment, tornSegment);

    const second = new JsonlEventStore(workspace, { now: fixedClock });
    const result = await second.append([note('second try')]);
    expect(result.events[0]!.seq).toBe(7);
    const events = await readAll(second);
    const quarantinedTo = String(events[5]!.data['quarantined_to']);
    expect(readFileSync(join(workspace, '.baton', quarantinedTo)).equals(torn)).toBe(true);
    // Nothing quarantined is ever deleted: both copies are kept.
    const files = quarantineFiles(workspace);
    expect(files).toHaveLength(2);
    for (const file of files) expect(readFileSync(join(quarantineDir(workspace), file)).equals(torn)).toBe(true);
    expect(await second.verify()).toMatchObject({ ok: true, head_seq: 7 });
    await second.close();
  });

  it('an empty segment left by a crash during a roll is reused by the next append', async () => {
    const { workspace } = await seedLog({ segmentBytes: 1 });
    const rolled = join(segmentPaths(workspace)[0]!, '..', segmentName(6));
    writeFileSync(rolled, '', { mode: 0o600 });

    const writer = new JsonlEventStore(workspace, { now: fixedClock, segmentBytes: 1 });
    const result = await writer.append([note('into the empty segment')]);
    expect(result.events[0]!.seq).toBe(6);
    expect(readFileSync(rolled, 'utf8')).toMatch(/^\{"v":1,"seq":6,/);
    expect(quarantineFiles(workspace)).toEqual([]);
    expect(await writer.verify()).toMatchObject({ ok: true, head_seq: 6 });
    await writer.close();
  });

  it('a corrupt line inside the log is never quarantined or overwritten: appends fail with LOG_CORRUPT naming its seq', async () => {
    const { workspace } = await seedLog();
    const segment = segmentPaths(workspace)[0]!;
    const bytes = readFileSync(segment);
    const lines = bytes.toString('utf8').split('\n');
    const thirdLineStart = Buffer.byteLength(lines[0]! + '\n' + lines[1]! + '\n');
    bytes[thirdLineStart] = 0x5b; // '{' → '[': no longer an envelope
    writeFileSync(segment, bytes);

    const writer = new JsonlEventStore(workspace, { now: fixedClock });
    const error: unknown = await writer.append([note('must not be written')]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isBatonError(error) && error.code).toBe('LOG_CORRUPT');
    expect(isBatonError(error) && error.details).toMatchObject({ seq: 3, offset: thirdLineStart, segment: segmentName(1) });
    expect((error as Error).message).toContain('seq 3');
    expect(readFileSync(segment).equals(bytes)).toBe(true);
    expect(quarantineFiles(workspace)).toEqual([]);
    expect(await writer.verify()).toMatchObject({ ok: false, first_bad: { seq: 3, offset: thirdLineStart } });
    await writer.close();
  });

  it('through the CLI: log show ignores a torn tail and verify names it (exit 3); log append recovers it, warns on stderr, and log show lists the log.recovered event', async () => {
    const workspace = makeTempDir('baton-torn-cli-');
    expect((await batonIn(workspace, ['init'])).code).toBe(0);
    for (const text of ['a', 'b', 'c']) {
      expect((await batonIn(workspace, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/cli', '--data', JSON.stringify({ text })])).code).toBe(0);
    }
    const committed = segmentBytes(workspace);
    const events = storedEvents(workspace);
    const torn = linesOf(forgeEvents({ seq: 3, hash: events[2]!.hash }, 1, { text: 'INJECTED cli' })).subarray(0, 150);
    appendFileSync(segmentPaths(workspace)[0]!, torn);

    const show = await batonIn(workspace, ['log', 'show']);
    expect(show.code).toBe(0);
    expect(show.stdout).toBe(committed.toString('utf8'));
    const verify = await batonIn(workspace, ['log', 'verify']);
    expect(verify.code).toBe(3);
    expect(jsonLines(verify.stdout)[0]).toMatchObject({
      type: 'log_verification',
      ok: false,
      head_seq: 3,
      checked: 3,
      first_bad: { seq: 4, offset: committed.length, tail: 'torn' },
    });

    const append = await batonIn(workspace, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/cli', '--data', '{"text":"d"}']);
    expect(append.code).toBe(0);
    expect(append.stderr).toMatch(/recovered from a torn write: 150 bytes at 000000000001\.jsonl:\d+ moved to quarantine\//);
    expect(jsonLines(append.stdout)[0]).toMatchObject({ type: 'appended', events: [{ seq: 5 }] });

    const recovered = await batonIn(workspace, ['log', 'show', '--type', 'log.recovered']);
    const [event] = jsonLines(recovered.stdout);
    expect(event).toMatchObject({ seq: 4, type: 'log.recovered', data: { reason: 'torn_tail', offset: committed.length, bytes: 150, lines_dropped: 0 } });
    expect((await batonIn(workspace, ['log', 'verify'])).code).toBe(0);
  });
});
