import { sameRecord } from './snapshot-codec.js';
import { lazyRecords, summarize, type WuSummary } from './lazy-records.js';
import { newWuRecord, type Mark, type WorkUnitsState, type WuRecord } from './records.js';
import { setOwnValue } from '../own-keys.js';
import type { SnapshotBody } from '../projection.js';

/**
 * The work-unit fold's snapshot in two parts, so that a read parses only what it answers:
 *
 * - the head (JSON, parsed on every load): the state without its WU records and without the
 *   imported-line keys; and per WU its id, where its record ends in the body and its summary
 *   (lazy-records.ts: defined, done, initiative, lane, dependencies);
 * - the body (bytes): each WU record as its own JSON text `[marks, record]`, one after the other,
 *   then the imported-line keys; a record is parsed when the fold or a view first touches it.
 *
 * A record is plain JSON (JSON.parse builds it, the fastest way there is) but for the two places
 * that repeat themselves: `def_seq` holds, per definition field, the index of its event's mark in
 * the record's `marks` (an import sets ~15 fields with one event: one mark, shared, as in the live
 * fold), and a `yaml_fields` equal to `def` (a WU known from its YAML file) is written as 0.
 *
 * A state decoded from it is the state encoded (same keys in the same order, same values), so every
 * view is byte-identical to one folded from scratch. Pure: bytes in, bytes out.
 */
export const PAGED_CODEC = 'paged-3';

/** defined, done (0/1), initiative, lane, dependencies. */
type SummaryTuple = [0 | 1, 0 | 1, string | null, string | null, string[]];

export interface PagedHead {
  codec: typeof PAGED_CODEC;
  /** The state's own keys, in order (where `wus` and `lumenflow_lines` go back). */
  keys: string[];
  /** The state's other keys' values. */
  core: Record<string, unknown>;
  ids: string[];
  /** Byte offset in the body where each record ends (it starts where the one before ends). */
  ends: number[];
  summaries: SummaryTuple[];
  /** Where the imported-line keys lie in the body, when the state has them. */
  lines: [number, number] | null;
}

export interface PagedSnapshot {
  head: PagedHead;
  body: string;
}

/** Printable ASCII: one byte per character (JSON text holds no raw control character). */
const ASCII = /^[ -~]*$/;
const encoder = new TextEncoder();
const byteLength = (text: string): number => (ASCII.test(text) ? text.length : encoder.encode(text).length);

const MARK_KEYS = ['seq', 'at', 'type', 'actor', 'stream', 'summary'] as const;
type MarkTuple = [number, string, string, string, string, string];
/** Where a record holds an event's mark plus its own keys: the value, or (worktrees, branches) each value in it. */
const SKIPPED = new Set(['def', 'def_seq', 'yaml_fields']);

function isMarkLike(value: unknown): value is Mark & Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length >= MARK_KEYS.length && MARK_KEYS.every((k, i) => keys[i] === k);
}

/** Interns marks: each distinct mark object once per record. */
class MarkTable {
  /** Each as its six values, in MARK_KEYS order. */
  readonly marks: MarkTuple[] = [];
  /** Where a mark with keys of its own was folded: a record key, or a key and the key in its map. */
  readonly folds: (string | [string, string])[] = [];
  private readonly index = new Map<object, number>();
  of(mark: Mark): number {
    let i = this.index.get(mark);
    if (i === undefined) {
      i = this.marks.push([mark.seq, mark.at, mark.type, mark.actor, mark.stream, mark.summary]) - 1;
      this.index.set(mark, i);
    }
    return i;
  }
  /** A mark with keys of its own after the six, as `[index, { …its own keys }]`. */
  folded(value: Mark & Record<string, unknown>, at: string | [string, string]): [number, Record<string, unknown>] {
    const own: Record<string, unknown> = {};
    for (const key of Object.keys(value).slice(MARK_KEYS.length)) setOwnValue(own, key, value[key]);
    this.folds.push(at);
    return [this.of(value), own];
  }
}

/**
 * One record's text: `[marks, record, folds]`, the record without what a new record holds anyway
 * (a key whose value is the default's) and with each mark said once: `def_seq` as indexes into
 * `marks`, a value that starts with a mark (at the places `folds` lists) as `[index, own keys]`,
 * and `yaml_fields` equal to `def` as 0.
 */
function recordText(wu: WuRecord): string {
  const table = new MarkTable();
  const fresh = newWuRecord(wu.wu_id) as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(wu) as [string, unknown][]) {
    if (value === undefined) continue;
    if (key !== 'wu_id' && Object.hasOwn(fresh, key) && JSON.stringify(value) === JSON.stringify(fresh[key])) continue;
    if (key === 'def_seq') {
      const defSeq: Record<string, number> = {};
      for (const [field, mark] of Object.entries(wu.def_seq) as [string, Mark][]) defSeq[field] = table.of(mark);
      out[key] = defSeq;
    } else if (key === 'yaml_fields' && sameRecord(wu.yaml_fields as Record<string, unknown>, wu.def as Record<string, unknown>)) out[key] = 0;
    else if (SKIPPED.has(key)) out[key] = value;
    else if (isMarkLike(value)) out[key] = table.folded(value, key);
    else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const inner: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) setOwnValue(inner, k, isMarkLike(v) ? table.folded(v, [key, k]) : v);
      out[key] = inner;
    } else out[key] = value;
  }
  return JSON.stringify([table.marks, out, table.folds]);
}

/** The inverse of recordText on a parsed record (throws on what it cannot have written). */
function restoreRecord(marks: unknown[], parsed: Record<string, unknown>, folds: unknown[]): WuRecord {
  // One object per mark, shared by every place that holds it, as in the live fold.
  const built: (Mark | undefined)[] = [];
  const markAt = (i: unknown): Mark => {
    const known = built[i as number];
    if (known !== undefined) return known;
    const t = marks[i as number];
    if (!Array.isArray(t) || t.length !== MARK_KEYS.length) throw new Error(`no mark ${String(i)}`);
    const mark: Mark = {
      seq: t[0] as number,
      at: t[1] as string,
      type: t[2] as string,
      actor: t[3] as string,
      stream: t[4] as string,
      summary: t[5] as string,
    };
    built[i as number] = mark;
    return mark;
  };
  const unfold = (value: unknown): Record<string, unknown> => {
    if (!Array.isArray(value) || value.length !== 2 || typeof value[1] !== 'object' || value[1] === null) throw new Error('not a folded mark');
    const mark = markAt(value[0]);
    const own = value[1] as Record<string, unknown>;
    const out: Record<string, unknown> = { seq: mark.seq, at: mark.at, type: mark.type, actor: mark.actor, stream: mark.stream, summary: mark.summary };
    for (const key of Object.keys(own)) setOwnValue(out, key, own[key]);
    return out;
  };
  for (const at of folds) {
    if (typeof at === 'string') parsed[at] = unfold(parsed[at]);
    else {
      const [key, inner] = at as [string, string];
      const map = parsed[key] as Record<string, unknown> | undefined;
      if (typeof map !== 'object' || map === null || !Object.hasOwn(map, inner)) throw new Error(`no ${key}.${inner} to unfold`);
      setOwnValue(map, inner, unfold(map[inner]));
    }
  }
  const defSeq = parsed['def_seq'];
  if (defSeq !== undefined) {
    if (typeof defSeq !== 'object' || defSeq === null) throw new Error('def_seq is not an object');
    for (const field of Object.keys(defSeq)) (defSeq as Record<string, unknown>)[field] = markAt((defSeq as Record<string, unknown>)[field]);
  }
  // Keys in a new record's order (the fold's records all start as one), then any other, as written.
  const wu = Object.assign(newWuRecord(parsed['wu_id'] as string), parsed) as WuRecord;
  // A copy of its own (the fold changes both records' keys in place); their lists are shared, as
  // in the live fold, which replaces a list and never edits one.
  if ((wu.yaml_fields as unknown) === 0) wu.yaml_fields = { ...wu.def };
  return wu;
}

export function encodePaged(state: WorkUnitsState): PagedSnapshot {
  const keys = Object.keys(state);
  const core: Record<string, unknown> = {};
  for (const key of keys) if (key !== 'wus' && key !== 'lumenflow_lines') core[key] = state[key as keyof WorkUnitsState];
  const ids = Object.keys(state.wus);
  const pieces: string[] = [];
  const ends: number[] = [];
  const summaries: SummaryTuple[] = [];
  let at = 0;
  for (const id of ids) {
    const wu = state.wus[id]!;
    const piece = recordText(wu);
    pieces.push(piece);
    at += byteLength(piece);
    ends.push(at);
    const s = summarize(wu);
    summaries.push([s.defined ? 1 : 0, s.done ? 1 : 0, s.initiative, s.lane, [...s.deps]]);
  }
  let lines: [number, number] | null = null;
  if (state.lumenflow_lines !== undefined) {
    const piece = JSON.stringify(state.lumenflow_lines);
    pieces.push(piece);
    lines = [at, at + byteLength(piece)];
  }
  return { head: { codec: PAGED_CODEC, keys, core, ids, ends, summaries, lines }, body: pieces.join('') };
}

export function isPagedHead(head: unknown): head is PagedHead {
  return typeof head === 'object' && head !== null && (head as { codec?: unknown }).codec === PAGED_CODEC;
}

/** Throws on a head that is not this form (the runner then rebuilds); a record's bytes are checked when it is decoded. */
export function decodePaged(head: unknown, body: SnapshotBody): WorkUnitsState {
  if (!isPagedHead(head)) throw new Error('not a paged work-unit snapshot');
  const { keys, ids, ends, summaries, lines } = head;
  if (!Array.isArray(keys) || !keys.includes('wus') || !Array.isArray(ids) || !Array.isArray(ends) || !Array.isArray(summaries))
    throw new Error('malformed paged snapshot head');
  if (ids.length !== ends.length || ids.length !== summaries.length) throw new Error('paged snapshot: ids, ends and summaries differ in length');
  const last = lines !== null ? lines[1] : (ends.at(-1) ?? 0);
  if (last !== body.length) throw new Error(`paged snapshot: the body holds ${body.length} bytes, the head says ${last}`);
  const core = head.core;
  if (typeof core !== 'object' || core === null) throw new Error('malformed paged snapshot head');

  const decodeRecord = (index: number): WuRecord => {
    const start = index === 0 ? 0 : ends[index - 1]!;
    const damaged = (why: string, cause?: unknown): Error =>
      new Error(`the work-unit snapshot's record of ${ids[index]} is damaged (${why}); delete .baton/cache to rebuild it from the log`, { cause });
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.text(start, ends[index]!));
    } catch (error) {
      throw damaged((error as Error).message, error);
    }
    const [marks, record, folds] = Array.isArray(parsed) ? (parsed as [unknown, Record<string, unknown>, unknown]) : [];
    if (!Array.isArray(marks) || !Array.isArray(folds) || record === null || typeof record !== 'object' || record['wu_id'] !== ids[index])
      throw damaged('not a record of this WU');
    let wu: WuRecord;
    try {
      wu = restoreRecord(marks, record, folds);
    } catch (error) {
      throw damaged((error as Error).message, error);
    }
    return wu;
  };
  const wus = lazyRecords(ids, summaries.map(summaryOf), decodeRecord);

  const state = {} as Record<string, unknown>;
  for (const key of keys) {
    if (key === 'wus') state[key] = wus;
    else if (key === 'lumenflow_lines') defineLazy(state, key, () => JSON.parse(body.text(lines![0], lines![1])) as unknown);
    else state[key] = core[key];
  }
  return state as unknown as WorkUnitsState;
}

function summaryOf(t: SummaryTuple): WuSummary {
  return { defined: t[0] === 1, done: t[1] === 1, initiative: t[2], lane: t[3], deps: Object.freeze(t[4]) };
}

/** A property parsed on first read (only an import asks for the imported-line keys); a write replaces it. */
function defineLazy(target: Record<string, unknown>, key: string, load: () => unknown): void {
  let value: unknown;
  let loaded = false;
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get() {
      if (!loaded) [value, loaded] = [load(), true];
      return value;
    },
    set(next: unknown) {
      [value, loaded] = [next, true];
    },
  });
}
