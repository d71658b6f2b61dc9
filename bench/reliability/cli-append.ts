import type { CliRun } from './cli.js';
import type { Acknowledged } from './log-check.js';

/**
 * One `baton log append` invocation as the crash and storm campaigns make it, and what it
 * acknowledged. An append is acknowledged when the CLI printed its `appended` envelope (or its
 * `append_summary`) and exited 0: a child killed after printing acknowledged nothing.
 */
export const AppendShape = {
  /** `--type --stream --data [--idempotency-key]`: one event. */
  single: 'single',
  /** `--events - --batch [--each] [--idempotency-key]`: one atomic batch. */
  batch: 'batch',
  /** `--events - --each`: each line its own append call, each with its own idempotency key or none. */
  lines: 'lines',
} as const;
export type AppendShape = (typeof AppendShape)[keyof typeof AppendShape];

export interface Note {
  stream: string;
  text: string;
  /** A `lines` call's own idempotency key. */
  key?: string;
}

export interface AppendInvocation {
  shape: AppendShape;
  notes: Note[];
  /** The key of a single event or a whole batch. */
  key?: string;
  /** A batch acknowledged by its `append_summary` (no `--each`): only the last event's hash is printed. */
  summary?: boolean;
}

/** The arguments after `--json --dir WS`, and the stdin. */
export function appendArguments(invocation: AppendInvocation): { args: string[]; input: string } {
  const keyFlag = invocation.key !== undefined ? ['--idempotency-key', invocation.key] : [];
  const line = (note: Note): string =>
    JSON.stringify({ type: 'note.recorded', stream: note.stream, data: { text: note.text }, ...(note.key !== undefined ? { idempotency_key: note.key } : {}) });
  if (invocation.shape === AppendShape.single) {
    const note = invocation.notes[0]!;
    return {
      args: ['log', 'append', '--type', 'note.recorded', '--stream', note.stream, '--data', JSON.stringify({ text: note.text }), ...keyFlag],
      input: '',
    };
  }
  const input = invocation.notes.map((n) => `${line(n)}\n`).join('');
  if (invocation.shape === AppendShape.batch)
    return { args: ['log', 'append', '--events', '-', '--batch', ...(invocation.summary === true ? [] : ['--each']), ...keyFlag], input };
  return { args: ['log', 'append', '--events', '-', '--each'], input };
}

interface AppendedLine {
  type: 'appended';
  events: { seq: number; hash: string }[];
  deduplicated: boolean;
}
interface SummaryLine {
  type: 'append_summary';
  first_seq: number;
  last_seq: number;
  head_hash: string;
  deduplicated: number;
}

/**
 * What a finished invocation acknowledged: nothing unless it exited 0; then one entry per append
 * call, in order, each with the key it was made with. Throws when an exit 0 printed something else
 * (the caller counts that as a failure).
 */
export function acknowledgedBy(invocation: AppendInvocation, run: CliRun): Acknowledged[] {
  if (run.code !== 0) return [];
  const envelopes = run.stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as AppendedLine | SummaryLine | { type: string });
  const calls = invocation.shape === AppendShape.lines ? invocation.notes.length : 1;
  if (envelopes.length !== calls) throw new Error(`exit 0 printed ${envelopes.length} envelopes for ${calls} append calls`);
  return envelopes.map((envelope, i) => {
    const key = invocation.shape === AppendShape.lines ? (invocation.notes[i]!.key ?? null) : (invocation.key ?? null);
    if (envelope.type === 'appended') {
      const e = envelope as AppendedLine;
      return { key, seqs: e.events.map((x) => x.seq), hashes: e.events.map((x) => x.hash), deduplicated: e.deduplicated };
    }
    if (envelope.type === 'append_summary') {
      const e = envelope as SummaryLine;
      const seqs = Array.from({ length: e.last_seq - e.first_seq + 1 }, (_, k) => e.first_seq + k);
      return { key, seqs, hashes: seqs.map((seq) => (seq === e.last_seq ? e.head_hash : null)), deduplicated: e.deduplicated > 0 };
    }
    throw new Error(`exit 0 printed a ${envelope.type} envelope`);
  });
}
