import { closeSync, cpSync, mkdirSync, openSync, readFileSync, readdirSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredEvent } from '../../events/envelope.js';
import { JsonlEventStore } from '../../src/store/jsonl/jsonl-store.js';
import { runCli, seeded, type CliRun } from './cli.js';
import { count, emptyResult, record, type CampaignResult } from './outcome.js';
import { changedPaths, snapshotTree } from './tree.js';

/**
 * The byte-flip campaign: in a copy of a 1,000-event log, one byte is changed in place, in turn in
 * each class of position — the first line, a middle line, the last line, the final newline — and
 * each class is reported on its own row.
 *
 * Each copy first takes a healthy append through the CLI (the log's 1,000th event), as an agent
 * would: the writer records what it checked, and the flip comes after that record.
 *
 * - A flip inside a line (its newline included, but the last line's): `log verify` exits 3 naming
 *   that line's seq, `log show` exits 3, `log append` exits 3 and nothing under `.baton/log/`
 *   changes — never acknowledged on a log a read refuses, however far before the tail the flip is.
 * - A flip of the final newline leaves a whole last event whose newline is damaged: an acknowledged
 *   event. `log verify` exits 3 naming it as an `unterminated_event` tail; the next `log append`
 *   exits 0, restores the newline in place (the last event keeps its seq, hash and bytes), records
 *   `log.repaired`, and the log verifies.
 */
export const FlipPosition = {
  firstLine: 'first line',
  middleLine: 'middle line',
  lastLine: 'last line',
  finalNewline: 'final newline',
} as const;
export type FlipPosition = (typeof FlipPosition)[keyof typeof FlipPosition];

const POSITIONS: readonly FlipPosition[] = Object.values(FlipPosition);

const NOTE = ['log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data'];

export async function byteFlipCampaign(options: { flips: number; seed: number; root: string; events?: number }): Promise<CampaignResult[]> {
  const random = seeded(options.seed);
  const results = new Map(POSITIONS.map((p) => [p, emptyResult(`byte flip: ${p}`)]));
  const total = options.events ?? 1_000;
  const base = join(options.root, 'flip-base');
  mkdirSync(base, { recursive: true });
  // All but the last event: each copy's healthy append through the CLI makes it `total`.
  const store = new JsonlEventStore(base);
  for (let seq = 1; seq < total;) {
    const size = Math.min(total - seq, random() < 0.5 ? 1 : 2 + Math.floor(random() * 8));
    await store.append(
      Array.from({ length: size }, (_, k) => ({
        type: 'note.recorded',
        stream: `note/f${k % 4}`,
        data: { text: `flip target ${seq + k} ✓ ${'y'.repeat(Math.floor(random() * 120))}` },
      })),
    );
    seq += size;
  }
  await store.close();
  const segmentName = readdirSync(join(base, '.baton', 'log')).find((n) => n.endsWith('.jsonl'))!;
  for (let f = 0; f < options.flips; f++) {
    const position = POSITIONS[f % POSITIONS.length]!;
    const result = results.get(position)!;
    const started = Date.now();
    const copy = join(options.root, `flip-${f}`);
    cpSync(base, copy, { recursive: true });
    const segment = join(copy, '.baton', 'log', segmentName);
    const healthy = await runCli(['--json', '--dir', copy, ...NOTE, '{"text":"before the flip"}']);
    if (healthy.code !== 0) record(result, healthy.code === 1 ? 'exit1' : 'otherFailures', `flip ${f}: the healthy append exited ${healthy.code}`);
    const before = readFileSync(segment);
    const lineStarts = [0];
    for (let at = before.indexOf(0x0a); at >= 0 && at < before.length - 1; at = before.indexOf(0x0a, at + 1)) lineStarts.push(at + 1);
    const { offset, seq } = pickByte(position, lineStarts, before.length, random);
    flipByte(segment, offset, 1 + Math.floor(random() * 255));
    const where = `flip ${f} (${position}): byte ${offset} of ${before.length} (seq ${seq} of ${lineStarts.length}, seed ${options.seed})`;
    if (position === FlipPosition.finalNewline) await checkRepaired(copy, segment, before, seq, result, where);
    else await checkRefused(copy, segment, seq, result, where);
    result.trials += 1;
    result.seconds += (Date.now() - started) / 1000;
  }
  return POSITIONS.map((p) => results.get(p)!);
}

/** A byte of the class: its offset in the segment, and the seq of the line it belongs to. */
function pickByte(position: FlipPosition, lineStarts: readonly number[], length: number, random: () => number): { offset: number; seq: number } {
  const lines = lineStarts.length;
  const inLine = (seq: number, withNewline: boolean): { offset: number; seq: number } => {
    const start = lineStarts[seq - 1]!;
    const end = (seq < lines ? lineStarts[seq]! : length) - (withNewline ? 0 : 1);
    return { offset: start + Math.floor(random() * (end - start)), seq };
  };
  switch (position) {
    case FlipPosition.firstLine:
      return inLine(1, true);
    case FlipPosition.middleLine:
      return inLine(2 + Math.floor(random() * (lines - 2)), true);
    case FlipPosition.lastLine:
      return inLine(lines, false);
    case FlipPosition.finalNewline:
      return { offset: length - 1, seq: lines };
  }
}

function flipByte(path: string, offset: number, mask: number): void {
  const fd = openSync(path, 'r+');
  try {
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, offset);
    writeSync(fd, Buffer.from([byte[0]! ^ mask]), 0, 1, offset);
  } finally {
    closeSync(fd);
  }
}

interface Verification {
  ok: boolean;
  head_seq: number;
  first_bad: { seq: number; offset: number; tail?: string; reason: string } | null;
}

function verification(run: CliRun): Verification | undefined {
  try {
    return JSON.parse(run.stdout.trim().split('\n')[0]!) as Verification;
  } catch {
    return undefined;
  }
}

function expectExit(result: CampaignResult, where: string, what: string, run: CliRun, exit: number): boolean {
  if (run.code === exit) return true;
  const said = (run.stdout + run.stderr).slice(0, 200).replace(/\s+/g, ' ');
  if (run.timedOut) record(result, 'hung', `${where}: ${what} was killed after its time-out`);
  else if (run.code === 1 || run.code === null) record(result, 'exit1', `${where}: ${what} exited ${run.code ?? run.signal}: ${said}`);
  else record(result, 'otherFailures', `${where}: ${what} exited ${run.code}, not ${exit}: ${said}`);
  return false;
}

/** A flip inside the log: refused by verify (naming the line), show and append; nothing under .baton/log/ changes. */
async function checkRefused(copy: string, segment: string, seq: number, result: CampaignResult, where: string): Promise<void> {
  const logDir = join(copy, '.baton', 'log');
  const flipped = snapshotTree(logDir);
  const bytes = readFileSync(segment);
  const verify = await runCli(['--json', '--dir', copy, 'log', 'verify']);
  if (expectExit(result, where, 'log verify', verify, 3)) {
    const bad = verification(verify)?.first_bad;
    if (bad?.seq !== seq || bad.tail !== undefined) record(result, 'otherFailures', `${where}: verify named ${JSON.stringify(bad)}, not seq ${seq}`);
    else {
      result.checked += 1;
      count(result, 'named by verify');
    }
  }
  const show = await runCli(['--json', '--dir', copy, 'log', 'show']);
  const append = await runCli(['--json', '--dir', copy, ...NOTE, '{"text":"after a flip"}']);
  const refused = [expectExit(result, where, 'log show', show, 3), expectExit(result, where, 'log append', append, 3)].every(Boolean);
  const changed = changedPaths(flipped, snapshotTree(logDir));
  if (changed.length > 0 || !readFileSync(segment).equals(bytes))
    record(result, 'changedOnRefusal', `${where}: the refused commands changed ${changed.join(', ') || 'the segment'}`);
  else if (refused) count(result, 'show and append refused, log unchanged');
}

/**
 * The final newline flipped: verify names the last event as an unterminated_event tail; the next
 * append exits 0, restores the newline (every byte before it as it was), records log.repaired about
 * that seq, and the log verifies.
 */
async function checkRepaired(copy: string, segment: string, before: Buffer, seq: number, result: CampaignResult, where: string): Promise<void> {
  const verify = await runCli(['--json', '--dir', copy, 'log', 'verify']);
  if (expectExit(result, where, 'log verify', verify, 3)) {
    const bad = verification(verify)?.first_bad;
    if (bad?.seq !== seq || bad.tail !== 'unterminated_event')
      record(result, 'otherFailures', `${where}: verify named ${JSON.stringify(bad)}, not seq ${seq} as an unterminated_event`);
    else {
      result.checked += 1;
      count(result, 'named by verify');
    }
  }
  const append = await runCli(['--json', '--dir', copy, ...NOTE, '{"text":"after a flip"}']);
  if (!expectExit(result, where, 'the next log append', append, 0)) return;
  const after = readFileSync(segment);
  if (!after.subarray(0, before.length).equals(before)) {
    record(result, 'acknowledgedLost', `${where}: the repair did not give back the log's bytes (the last event and its newline)`);
    return;
  }
  const added = after
    .subarray(before.length)
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as StoredEvent);
  const repaired = added[0];
  const appended = (JSON.parse(append.stdout.trim().split('\n')[0]!) as { events: { seq: number }[] }).events[0]?.seq;
  if (repaired?.type !== 'log.repaired' || repaired.seq !== seq + 1 || repaired.data['seq'] !== seq || appended !== seq + 2) {
    record(
      result,
      'otherFailures',
      `${where}: after the repair the log goes on with ${JSON.stringify(added.map((e) => [e.seq, e.type, e.data]))}, the append got seq ${appended}`,
    );
    return;
  }
  const again = await runCli(['--json', '--dir', copy, 'log', 'verify']);
  if (expectExit(result, where, 'log verify after the repair', again, 0)) count(result, 'repaired by the next append');
}
