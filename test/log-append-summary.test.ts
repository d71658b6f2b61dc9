import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StoredEventSchema, type StoredEvent } from '../events/envelope.js';
import { AppendSummaryEnvelope } from '../src/app/envelopes/foundation.js';
import { batonIn, errorEnvelopeOf, jsonLines, startBaton, type CliResult } from './helpers/cli.js';
import { envelopeProblem } from './helpers/envelope-schemas.js';
import { makeTempDir, removeTempDirs, storedEvents, storedLines } from './helpers/workspace.js';

/**
 * `log append --events` prints one summary (count, calls, first and last seq, head hash,
 * deduplicated) in JSON mode too, as an `append_summary` envelope, unless `--each` asks for the
 * `appended` envelope per call. A single-event append keeps its `appended` envelope. A failure
 * half-way still reports what landed before it, then the error.
 */
afterAll(removeTempDirs);

const NOW = '2026-11-26T15:00:00.000Z';
const env = { BATON_NOW: NOW };
const note = (stream: string, text: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ type: 'note.recorded', stream, data: { text }, ...extra });
const notes = (n: number, stream = 'note/s'): string => Array.from({ length: n }, (_, i) => note(stream, `n ${i}`)).join('\n') + '\n';

async function run(dir: string, args: string[], input?: string): Promise<CliResult> {
  return batonIn(dir, args, { env, ...(input !== undefined ? { input } : {}) });
}

async function lastStored(dir: string): Promise<StoredEvent> {
  const tail = await run(dir, ['log', 'tail', '-n', '1']);
  expect(tail.code).toBe(0);
  return StoredEventSchema.parse(jsonLines(tail.stdout)[0]);
}

describe('log append --events in JSON mode prints one append_summary', () => {
  it('one line per call: count, calls, first and last seq, head hash (log tail’s last hash), nothing deduplicated', async () => {
    const dir = makeTempDir('baton-summary-json-');
    expect((await run(dir, ['--json', 'log', 'append', '--type', 'note.recorded', '--stream', 'note/x', '--data', '{"text":"before"}'])).code).toBe(0);
    const r = await run(dir, ['--json', 'log', 'append', '--events', '-'], notes(5));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const lines = jsonLines(r.stdout);
    expect(lines).toHaveLength(1);
    const head = await lastStored(dir);
    expect(head.seq).toBe(6);
    expect(AppendSummaryEnvelope.parse(lines[0])).toEqual({
      v: 1,
      type: 'append_summary',
      generated_at: NOW,
      count: 5,
      calls: 5,
      first_seq: 2,
      last_seq: 6,
      head_hash: head.hash,
      deduplicated: 0,
    });
    // Keys in the envelope order: v, type, generated_at first.
    expect(Object.keys(lines[0] as object)).toEqual(['v', 'type', 'generated_at', 'count', 'calls', 'first_seq', 'last_seq', 'head_hash', 'deduplicated']);
    // The published JSON Schema knows it, and refuses the per-event shape under its name.
    expect(envelopeProblem(lines[0])).toBeUndefined();
    expect(envelopeProblem({ ...(lines[0] as object), events: [] })).toMatch(/append_summary.schema.json/);
  });

  it('--batch is one call; a retried keyed batch reports the events stored the first time, all deduplicated', async () => {
    const dir = makeTempDir('baton-summary-batch-');
    const file = join(dir, 'batch.jsonl');
    writeFileSync(file, notes(4));
    const first = await run(dir, ['log', 'append', '--events', file, '--batch', '--idempotency-key', 'k-1']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const head = await lastStored(dir);
    expect(jsonLines(first.stdout)).toEqual([
      { v: 1, type: 'append_summary', generated_at: NOW, count: 4, calls: 1, first_seq: 1, last_seq: 4, head_hash: head.hash, deduplicated: 0 },
    ]);
    await run(dir, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/x', '--data', '{"text":"after"}']);
    const retry = await run(dir, ['log', 'append', '--events', file, '--batch', '--idempotency-key', 'k-1']);
    expect(retry.code).toBe(0);
    expect(jsonLines(retry.stdout)).toEqual([
      { v: 1, type: 'append_summary', generated_at: NOW, count: 4, calls: 1, first_seq: 1, last_seq: 4, head_hash: head.hash, deduplicated: 4 },
    ]);
    expect(storedEvents(dir)).toHaveLength(5);
  });

  it('a file of exactly one event prints the summary too (the shape follows --events, not the line count)', async () => {
    const dir = makeTempDir('baton-summary-one-');
    const r = await run(dir, ['log', 'append', '--events', '-'], notes(1));
    const head = await lastStored(dir);
    expect(jsonLines(r.stdout)).toEqual([
      { v: 1, type: 'append_summary', generated_at: NOW, count: 1, calls: 1, first_seq: 1, last_seq: 1, head_hash: head.hash, deduplicated: 0 },
    ]);
    const human = await run(dir, ['--human', 'log', 'append', '--events', '-'], notes(1));
    expect(human.stdout).toBe(`appended 1 event in 1 batch: seq 2…2, head ${(await lastStored(dir)).hash.slice(0, 12)}\n`);
  });

  it('a single-event append (--type/--stream/--data) keeps its appended envelope', async () => {
    const dir = makeTempDir('baton-summary-single-');
    const r = await run(dir, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/x', '--data', '{"text":"one"}']);
    const event = await lastStored(dir);
    expect(r.stdout).toBe(
      `${JSON.stringify({ v: 1, type: 'appended', generated_at: NOW, events: [{ seq: 1, id: event.id, type: 'note.recorded', stream: 'note/x', hash: event.hash }], deduplicated: false })}\n`,
    );
  });
});

describe('--each keeps an appended envelope per call', () => {
  it('JSON: one appended envelope per line, byte for byte the per-call shape', async () => {
    const dir = makeTempDir('baton-summary-each-');
    const r = await run(dir, ['log', 'append', '--events', '-', '--each'], notes(3));
    expect(r.code).toBe(0);
    const expected = storedEvents(dir).map(
      (e) =>
        `${JSON.stringify({ v: 1, type: 'appended', generated_at: NOW, events: [{ seq: e.seq, id: e.id, type: e.type, stream: e.stream, hash: e.hash }], deduplicated: false })}\n`,
    );
    expect(expected).toHaveLength(3);
    expect(r.stdout).toBe(expected.join(''));
  });

  it('JSON with --batch: one appended envelope listing every event of the batch', async () => {
    const dir = makeTempDir('baton-summary-each-batch-');
    const r = await run(dir, ['log', 'append', '--events', '-', '--batch', '--each'], notes(3));
    const events = storedEvents(dir).map((e) => ({ seq: e.seq, id: e.id, type: e.type, stream: e.stream, hash: e.hash }));
    expect(r.stdout).toBe(`${JSON.stringify({ v: 1, type: 'appended', generated_at: NOW, events, deduplicated: false })}\n`);
  });
});

describe('human mode keeps its summary line', () => {
  it('calls, a batch, and a retried batch saying how many were already appended', async () => {
    const dir = makeTempDir('baton-summary-human-');
    const calls = await run(dir, ['--human', 'log', 'append', '--events', '-'], notes(3));
    const afterCalls = await lastStored(dir);
    expect(calls.stdout).toBe(`appended 3 events in 3 calls: seq 1…3, head ${afterCalls.hash.slice(0, 12)}\n`);
    const batch = await run(dir, ['--human', 'log', 'append', '--events', '-', '--batch', '--idempotency-key', 'h-1'], notes(2, 'note/b'));
    const afterBatch = await lastStored(dir);
    expect(batch.stdout).toBe(`appended 2 events in 1 batch: seq 4…5, head ${afterBatch.hash.slice(0, 12)}\n`);
    const retry = await run(dir, ['--human', 'log', 'append', '--events', '-', '--batch', '--idempotency-key', 'h-1'], notes(2, 'note/b'));
    expect(retry.stdout).toBe(`appended 2 events in 1 batch: seq 4…5, head ${afterBatch.hash.slice(0, 12)} (2 already appended)\n`);
  });
});

describe('an append that fails half-way reports what landed, then the error', () => {
  // The third line expects note/s to have no events: by then the first two lines have made it 2.
  const halfWay = `${note('note/s', 'one')}\n${note('note/s', 'two')}\n${note('note/s', 'three', { expected_version: 0 })}\n${note('note/s', 'four')}\n`;

  it('JSON: the summary of the two calls that landed, then the CONFLICT envelope; exit 4; the rest not appended', async () => {
    const dir = makeTempDir('baton-summary-fail-');
    const r = await run(dir, ['--json', 'log', 'append', '--events', '-'], halfWay);
    expect(r.code, r.stdout + r.stderr).toBe(4);
    const lines = jsonLines(r.stdout);
    expect(lines).toHaveLength(2);
    const landed = storedEvents(dir);
    expect(landed.map((e) => (e.data as { text: string }).text)).toEqual(['one', 'two']);
    expect(lines[0]).toEqual({
      v: 1,
      type: 'append_summary',
      generated_at: NOW,
      count: 2,
      calls: 2,
      first_seq: 1,
      last_seq: 2,
      head_hash: landed[1]!.hash,
      deduplicated: 0,
    });
    expect(errorEnvelopeOf(r).code).toBe('CONFLICT');
  });

  it('human: the summary line on stdout, the error on stderr; exit 4', async () => {
    const dir = makeTempDir('baton-summary-fail-human-');
    const r = await run(dir, ['--human', 'log', 'append', '--events', '-'], halfWay);
    expect(r.code).toBe(4);
    const landed = storedEvents(dir);
    expect(landed).toHaveLength(2);
    expect(r.stdout).toBe(`appended 2 events in 2 calls: seq 1…2, head ${landed[1]!.hash.slice(0, 12)}\n`);
    expect(r.stderr).toMatch(/CONFLICT/);
  });

  it('when the first call fails, or a batch fails (all or nothing), nothing landed: the error alone', async () => {
    const dir = makeTempDir('baton-summary-fail-first-');
    expect((await run(dir, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/s', '--data', '{"text":"zero"}'])).code).toBe(0);
    const first = await run(dir, ['log', 'append', '--events', '-'], `${note('note/s', 'one', { expected_version: 0 })}\n${note('note/s', 'two')}\n`);
    expect(first.code).toBe(4);
    expect(jsonLines(first.stdout)).toHaveLength(1);
    expect(errorEnvelopeOf(first).code).toBe('CONFLICT');
    const batch = await run(dir, ['log', 'append', '--events', '-', '--batch'], `${note('note/s', 'a')}\n${note('note/s', 'b', { expected_version: 0 })}\n`);
    expect(batch.code).toBe(4);
    expect(jsonLines(batch.stdout)).toHaveLength(1);
    expect(errorEnvelopeOf(batch).code).toBe('CONFLICT');
    expect(storedEvents(dir)).toHaveLength(1);
  });

  it('Ctrl-C half-way: the summary of the calls acknowledged so far on stdout, INTERRUPTED on stderr, exit 130', async () => {
    const dir = makeTempDir('baton-summary-interrupt-');
    expect((await run(dir, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/x', '--data', '{"text":"before"}'])).code).toBe(0);
    // One fsync per line: 20,000 calls cannot finish before the interrupt a few dozen calls in.
    const child = startBaton(['--dir', dir, '--json', 'log', 'append', '--events', '-'], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    child.stdin.end(notes(20_000));
    const deadline = Date.now() + 30_000;
    while (storedLines(dir).length < 40) {
      if (Date.now() > deadline) throw new Error(`no progress: ${stdout} ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGINT');
    expect(await closed).toBe(130);
    const lines = jsonLines(stdout);
    expect(lines).toHaveLength(1);
    const summary = AppendSummaryEnvelope.parse(lines[0]);
    const stored = storedEvents(dir);
    // Every acknowledged call is counted; the one in flight at the interrupt may have landed too.
    expect(stored.length - 1 - summary.count).toBeGreaterThanOrEqual(0);
    expect(stored.length - 1 - summary.count).toBeLessThanOrEqual(1);
    expect(stored.length).toBeLessThan(20_001);
    expect(summary).toMatchObject({ calls: summary.count, first_seq: 2, last_seq: summary.count + 1, head_hash: stored[summary.count]!.hash, deduplicated: 0 });
    expect(stderr).toBe('baton: INTERRUPTED: interrupted (SIGINT)\n');
  });
});
