import { setImmediate as nextTurn } from 'node:timers/promises';
import { INPUT_LIMITS, readInput } from '../../input/bounded-input.js';
import { z } from 'zod';
import type { NewEvent } from '../../../events/envelope.js';
import type { EventCatalog } from '../../../events/catalog.js';
import { describeZodIssues, type FieldProblem } from '../../../events/validation.js';
import { invalidInput, isBatonError } from '../../errors.js';
import { validateBatch } from '../../store/append-plan.js';
import type { AppendOptions, AppendResult } from '../../store/contract.js';
import type { CommandContext } from '../context.js';
import { AppendedEnvelope, AppendSummaryEnvelope } from '../../app/envelopes/foundation.js';
import { parseExpectedVersion, parseJsonObject } from '../flags.js';
import { startProgress, type Progress } from '../progress.js';
import { AppendTally, humanAppendSummary } from './log-append-summary.js';

export interface LogAppendFlags {
  type?: string;
  stream?: string;
  data?: string;
  expectedVersion?: string;
  idempotencyKey?: string;
  events?: string;
  batch?: boolean;
  /** With --events: an `appended` envelope (human: a line per event) per call instead of the summary. */
  each?: boolean;
}

/** One line of `--events`: the flags of a single append, as JSON. */
const EventLineSchema = z.strictObject({
  type: z.string(),
  stream: z.string(),
  data: z.record(z.string(), z.unknown()),
  expected_version: z.union([z.number().int().min(0), z.literal('no_stream'), z.literal('stream_exists')]).optional(),
  idempotency_key: z.string().optional(),
});

interface AppendCall {
  events: NewEvent[];
  options: AppendOptions;
}

export async function logAppend(ctx: CommandContext, flags: LogAppendFlags): Promise<void> {
  // A file of events shows its progress from the first line read: checking 200,000 lines takes seconds too.
  const progress = flags.events === undefined ? undefined : startProgress(ctx, 'reading events');
  try {
    const calls = await checkedCalls(ctx, flags, progress);
    const total = calls.reduce((sum, call) => sum + call.events.length, 0);
    // One batch is one call of the store (sealed and written at once): its line shows the time only.
    if (flags.batch) progress?.phase(`appending ${total.toLocaleString('en-US')} events as one batch`);
    else progress?.phase('appending', { total, unit: 'events' });
    await appendCalls(ctx, flags, calls, progress);
  } finally {
    progress?.end();
  }
}

/** The calls the flags or the file ask for, each event checked before anything is appended. */
async function checkedCalls(ctx: CommandContext, flags: LogAppendFlags, progress: Progress | undefined): Promise<AppendCall[]> {
  const catalog = await ctx.catalog();
  const calls = progress !== undefined ? await callsFromFile(flags, catalog, progress) : [singleCall(flags)];
  // Facts Baton records about itself (a recovery report) cannot be forged from the command line.
  calls.forEach((call, line) =>
    call.events.forEach((event) => {
      if (catalog.get(event.type)?.internal) {
        throw invalidInput(
          `${event.type} is recorded by Baton itself and cannot be appended by hand`,
          flags.events !== undefined ? `--events line ${line + 1}.type` : '--type',
        );
      }
    }),
  );
  return calls;
}

/** The calls, one after another, reported as one summary (or, with --each, an envelope per call). */
async function appendCalls(ctx: CommandContext, flags: LogAppendFlags, calls: AppendCall[], progress: Progress | undefined): Promise<void> {
  const store = await ctx.store();
  // A file's append reads as one summary, in both modes (a 20,000-line file no longer prints every
  // event's seq and hash); `--each` keeps an `appended` envelope (or line) per call.
  const summarise = flags.events !== undefined && !flags.each;
  const tally = new AppendTally();
  let reported = false;
  // Also when a call fails half-way: what landed is reported first, then the error (printed by the
  // command runner, with its exit code). When nothing landed, the error alone says so.
  const report = (): void => {
    progress?.end();
    const summary = summarise && !reported ? tally.envelope(ctx.now) : undefined;
    reported = true;
    if (summary !== undefined) ctx.output.emit(AppendSummaryEnvelope, summary, humanAppendSummary);
  };
  // Ctrl-C half-way: the calls acknowledged so far are reported before the program's SIGINT handler
  // exits 130 (the call in flight may have landed too; `log tail` shows the head).
  if (summarise) process.prependOnceListener('SIGINT', report);
  // A write acting as a session needs a live one: checked on the first call that records it.
  let identityChecked = false;
  try {
    for (const [i, call] of calls.entries()) {
      // The store writes with synchronous calls, so a loop of appends never reaches the event loop's
      // poll phase, where a SIGINT is handled: without this turn, Ctrl-C waited for the whole file.
      if (i > 0) await nextTurn();
      if (!identityChecked && call.events.some((e) => (e.actor ?? ctx.actor) === ctx.session)) {
        await ctx.requireActingSession(call.events);
        identityChecked = true;
      }
      const result = await store.append(call.events, call.options);
      progress?.set(i + 1);
      if (summarise) tally.add(result);
      else printAppended(ctx, result);
    }
  } finally {
    process.off('SIGINT', report);
    report();
  }
}

function singleCall(flags: LogAppendFlags): AppendCall {
  if (flags.batch) throw invalidInput('only applies with --events', '--batch');
  for (const [flag, value] of [
    ['--type', flags.type],
    ['--stream', flags.stream],
    ['--data', flags.data],
  ] as const) {
    if (value === undefined) throw invalidInput('is required (or give --events FILE)', flag);
  }
  const data = parseJsonObject(flags.data!, '--data');
  const expectedVersion = flags.expectedVersion !== undefined ? parseExpectedVersion(flags.expectedVersion) : undefined;
  return {
    events: [{ type: flags.type!, stream: flags.stream!, data }],
    options: {
      ...(expectedVersion !== undefined ? { expectedVersion } : {}),
      ...(flags.idempotencyKey !== undefined ? { idempotencyKey: flags.idempotencyKey } : {}),
    },
  };
}

/**
 * `--events FILE|-`: one event per JSON line. Every line is checked before anything is appended.
 * Each line is then its own append call (its own fsync and result), or with `--batch` all lines are
 * one atomic batch (one write, one fsync).
 */
async function callsFromFile(flags: LogAppendFlags, catalog: EventCatalog, progress: Progress): Promise<AppendCall[]> {
  for (const [flag, value] of [
    ['--type', flags.type],
    ['--stream', flags.stream],
    ['--data', flags.data],
    ['--expected-version', flags.expectedVersion],
  ] as const) {
    if (value !== undefined) throw invalidInput('cannot be combined with --events (put it in each line)', flag);
  }
  // A missing file, a folder, a device, a name too long, a file or line over its limit: exit 2
  // naming --events and the path (bounded-input.ts).
  const text = (await readInput(flags.events!, '--events', INPUT_LIMITS.events)).toString('utf8');
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (lines.length === 0) throw invalidInput('holds no events', '--events');
  progress.phase('parsing events', { total: lines.length, unit: 'lines' });
  const parsed = lines.map((line, i) => {
    progress.set(i + 1);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw invalidInput(`line ${i + 1} is not valid JSON (${(error as Error).message})`, '--events');
    }
    const result = EventLineSchema.safeParse(value);
    if (!result.success) throw invalidInput(describeZodIssues(result.error, `--events line ${i + 1}`));
    return result.data;
  });
  // Each line against its type's schema too, so a bad line fails before any line is appended.
  progress.phase('checking events', { total: parsed.length, unit: 'lines' });
  for (const [i, line] of parsed.entries()) {
    progress.set(i + 1);
    try {
      await validateBatch(catalog, [{ type: line.type, stream: line.stream, data: line.data }], {
        ...(line.idempotency_key !== undefined ? { idempotencyKey: line.idempotency_key } : {}),
      });
    } catch (error) {
      const problems = isBatonError(error) ? (error.details?.['problems'] as FieldProblem[] | undefined) : undefined;
      if (!problems) throw error;
      throw invalidInput(problems.map((p) => ({ field: `--events line ${i + 1}.${p.field}`, rule: p.rule })));
    }
  }
  const toCall = (line: z.infer<typeof EventLineSchema>): AppendCall => ({
    events: [{ type: line.type, stream: line.stream, data: line.data }],
    options: {
      ...(line.expected_version !== undefined ? { expectedVersion: line.expected_version } : {}),
      ...(line.idempotency_key !== undefined ? { idempotencyKey: line.idempotency_key } : {}),
    },
  });
  if (!flags.batch) return parsed.map(toCall);
  if (parsed.some((line) => line.idempotency_key !== undefined))
    throw invalidInput('with --batch, give --idempotency-key once instead of per line', '--events');
  const expected: Record<string, number | 'no_stream' | 'stream_exists'> = {};
  for (const line of parsed) if (line.expected_version !== undefined) expected[line.stream] = line.expected_version;
  return [
    {
      events: parsed.map((line) => ({ type: line.type, stream: line.stream, data: line.data })),
      options: {
        ...(Object.keys(expected).length > 0 ? { expectedVersion: expected } : {}),
        ...(flags.idempotencyKey !== undefined ? { idempotencyKey: flags.idempotencyKey } : {}),
      },
    },
  ];
}

function printAppended(ctx: CommandContext, result: AppendResult): void {
  ctx.output.emit(
    AppendedEnvelope,
    {
      v: 1,
      type: 'appended',
      generated_at: ctx.now,
      events: result.events.map((e) => ({ seq: e.seq, id: e.id, type: e.type, stream: e.stream, hash: e.hash })),
      deduplicated: result.deduplicated,
    },
    (e) =>
      e.events.map((ev) => `${e.deduplicated ? 'already appended' : 'appended'} #${ev.seq} ${ev.type} on ${ev.stream} (${ev.hash.slice(0, 12)})`).join('\n'),
  );
}
