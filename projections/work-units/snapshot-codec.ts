import type { WorkUnitsState } from './state.js';

/**
 * The work-unit fold's snapshot forms: plain, or compact ("the snapshot of the work-unit
 * fold is not several times the size of the log"; `snapshotFormFor` below picks one). The state as
 * plain JSON repeats itself: every WU record has the same ~27 keys, its definition the same field
 * names, and one event's mark (`seq, at, type, actor, stream, summary`) is copied into up to ~20
 * places (`def_seq` holds one per field an import set). The compact form says each of them once:
 *
 * - an object is `[1 + shape, …values]`, where `shapes[shape]` is its list of keys, in order;
 * - an object that starts with the six mark keys is `[-(1 + mark), shape, …other values]`, where
 *   `marks[mark]` holds those six values (the same six values are stored once, whatever holds them);
 * - an array is `[0, …items]`; strings, numbers, booleans and null are themselves;
 * - a WU's `yaml_fields` equal to its `def` (a WU known only from its YAML file, most of an
 *   imported repository) is the string SAME_AS_DEF, and a copy of `def` when decoded.
 *
 * Decoding builds fresh objects with the keys in their original order, so the state is the one a
 * JSON round trip gives (a key whose value is undefined is left out, as JSON.stringify does), and
 * views folded from it are byte-identical. Pure: no I/O.
 */
export interface CompactWorkUnitsState {
  codec: 'shapes-marks-1';
  shapes: string[][];
  marks: [number, string, string, string, string, string][];
  root: unknown;
}

/** The state as it is, for a state small beside its log: JSON writes and reads it fastest. */
export interface PlainWorkUnitsState {
  codec: 'plain-1';
  state: WorkUnitsState;
}

export type EncodedWorkUnitsState = CompactWorkUnitsState | PlainWorkUnitsState;

/**
 * Which form a snapshot takes. The compact form exists for the size (a repository imported from
 * LumenFlow: as plain JSON its state is three times its log); encoding and decoding it cost more
 * than JSON alone. So a state whose plain JSON is small beside the log it folds (a long history of
 * a few WUs) is stored plain, the rest compact. Sizes are estimated from the state, not measured:
 * about 1,200 bytes per WU record plus a copied event mark per field an import set (`def_seq`),
 * against a log of at least 300 bytes per event.
 */
const PLAIN_BYTES_PER_WU = 1200;
const PLAIN_BYTES_PER_DEF_MARK = 190;
const MIN_LOG_BYTES_PER_EVENT = 300;

export function snapshotFormFor(state: WorkUnitsState): EncodedWorkUnitsState['codec'] {
  let estimate = 0;
  for (const wu of Object.values(state.wus)) estimate += PLAIN_BYTES_PER_WU + PLAIN_BYTES_PER_DEF_MARK * Object.keys(wu.def_seq).length;
  return estimate <= (MIN_LOG_BYTES_PER_EVENT * state.head_seq) / 2 ? 'plain-1' : 'shapes-marks-1';
}

export function encodeWorkUnitsState(state: WorkUnitsState, form: EncodedWorkUnitsState['codec'] = snapshotFormFor(state)): EncodedWorkUnitsState {
  return form === 'plain-1' ? { codec: 'plain-1', state } : encodeCompact(state);
}

const MARK_KEYS = ['seq', 'at', 'type', 'actor', 'stream', 'summary'] as const;
/** Never a real `yaml_fields` (always an object). */
const SAME_AS_DEF = '\u0000def';

function startsWithMark(keys: readonly string[], value: Record<string, unknown>): boolean {
  if (keys.length < MARK_KEYS.length) return false;
  for (let i = 0; i < MARK_KEYS.length; i++) if (keys[i] !== MARK_KEYS[i]) return false;
  return (
    typeof value['seq'] === 'number' &&
    typeof value['at'] === 'string' &&
    typeof value['type'] === 'string' &&
    typeof value['actor'] === 'string' &&
    typeof value['stream'] === 'string' &&
    typeof value['summary'] === 'string'
  );
}

function encodeCompact(state: WorkUnitsState): CompactWorkUnitsState {
  const encoder = new CompactEncoder(state);
  const root = encoder.encode(state);
  return { codec: 'shapes-marks-1', shapes: encoder.shapes, marks: encoder.marks, root };
}

// Shapes are found through a trie of their keys (no string built per object).
interface ShapeNode {
  index: number;
  next: Map<string, ShapeNode>;
}

/** The tables of one compact encoding; `encode` walks the state once, filling them. */
class CompactEncoder {
  readonly shapes: string[][] = [];
  readonly marks: CompactWorkUnitsState['marks'] = [];
  private readonly markIndex = new Map<string, number>();
  private readonly markByObject = new Map<object, number>();
  private readonly trie: ShapeNode = { index: -1, next: new Map() };
  /** The yaml_fields objects equal to their WU's def (same keys, same order, same values). */
  private readonly sameAsDef = new Set<object>();

  constructor(state: WorkUnitsState) {
    for (const wu of Object.values(state.wus))
      if (sameRecord(wu.yaml_fields as Record<string, unknown>, wu.def as Record<string, unknown>)) this.sameAsDef.add(wu.yaml_fields);
  }

  private shapeOf(keys: string[], from = 0): number {
    let node = this.trie;
    for (let i = from; i < keys.length; i++) {
      let child = node.next.get(keys[i]!);
      if (child === undefined) node.next.set(keys[i]!, (child = { index: -1, next: new Map() }));
      node = child;
    }
    if (node.index === -1) {
      node.index = this.shapes.length;
      this.shapes.push(keys.slice(from));
    }
    return node.index;
  }

  /** The index in `marks` of a record known to start with the six mark keys. */
  private markOf(record: Record<string, unknown>): number {
    // One mark object is often held in many places (def_seq): known by identity first.
    let index = this.markByObject.get(record);
    if (index !== undefined) return index;
    const tuple: CompactWorkUnitsState['marks'][number] = [
      record['seq'] as number,
      record['at'] as string,
      record['type'] as string,
      record['actor'] as string,
      record['stream'] as string,
      record['summary'] as string,
    ];
    const id = tuple.join('\u0000');
    index = this.markIndex.get(id);
    if (index === undefined) {
      index = this.marks.length;
      this.marks.push(tuple);
      this.markIndex.set(id, index);
    }
    this.markByObject.set(record, index);
    return index;
  }

  encode(value: unknown): unknown {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) {
      const out: unknown[] = [0];
      // JSON turns a hole or an undefined item into null; so does this form.
      for (const item of value) out.push(item === undefined ? null : this.encode(item));
      return out;
    }
    if (this.sameAsDef.has(value)) return SAME_AS_DEF;
    const record = value as Record<string, unknown>;
    const keys = jsonKeys(record);
    if (startsWithMark(keys, record)) {
      const out: unknown[] = [-(1 + this.markOf(record)), this.shapeOf(keys, MARK_KEYS.length)];
      for (let i = MARK_KEYS.length; i < keys.length; i++) out.push(this.encode(record[keys[i]!]));
      return out;
    }
    const out: unknown[] = [1 + this.shapeOf(keys)];
    for (let i = 0; i < keys.length; i++) out.push(this.encode(record[keys[i]!]));
    return out;
  }
}

/** The keys JSON would write. The common case (none to leave out) allocates nothing beyond Object.keys. */
function jsonKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  // JSON leaves out a key whose value is undefined (or a function); so does this form.
  for (const k of keys) {
    const v = record[k];
    if (v === undefined || typeof v === 'function') return keys.filter((key) => record[key] !== undefined && typeof record[key] !== 'function');
  }
  return keys;
}

function assign(target: Record<string, unknown>, key: string, value: unknown): void {
  // A key named __proto__ (a worktree path may be anything) is an own property, as JSON.parse makes it.
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** Throws on anything that is not one of these forms (the runner then ignores the snapshot and rebuilds). */
export function decodeWorkUnitsState(json: unknown): WorkUnitsState {
  const encoded = json as { codec?: unknown } | null;
  if (encoded !== null && typeof encoded === 'object' && encoded.codec === 'plain-1') return checkedState((json as { state?: unknown }).state);
  return decodeCompact(json);
}

function checkedState(value: unknown): WorkUnitsState {
  const state = value as WorkUnitsState | null;
  if (state === null || typeof state !== 'object' || typeof state.wus !== 'object' || state.wus === null) throw new Error('malformed snapshot state');
  return state;
}

function decodeCompact(json: unknown): WorkUnitsState {
  const encoded = json as Partial<CompactWorkUnitsState> | null;
  if (
    encoded === null ||
    typeof encoded !== 'object' ||
    encoded.codec !== 'shapes-marks-1' ||
    !Array.isArray(encoded.shapes) ||
    !Array.isArray(encoded.marks)
  ) {
    throw new Error('not a work-unit snapshot');
  }
  const { shapes, marks } = encoded as CompactWorkUnitsState;
  if (!shapes.every((keys) => Array.isArray(keys) && keys.every((k) => typeof k === 'string'))) throw new Error('malformed snapshot shapes');
  /** Shapes with a `__proto__` key, which needs defineProperty (the rest take plain assignment). */
  const risky = shapes.map((keys) => keys.includes('__proto__'));
  const pureMarks: (Record<string, unknown> | undefined)[] = new Array(marks.length);

  const decode = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value;
    if (!Array.isArray(value) || value.length === 0 || typeof value[0] !== 'number') throw new Error('malformed snapshot value');
    const tag = value[0];
    if (tag === 0) {
      const out: unknown[] = new Array(value.length - 1);
      for (let i = 1; i < value.length; i++) out[i - 1] = decode(value[i]);
      return out;
    }
    if (tag > 0) {
      const keys = shapes[tag - 1];
      if (keys === undefined || keys.length !== value.length - 1) throw new Error('malformed snapshot object');
      const out: Record<string, unknown> = {};
      if (risky[tag - 1]) for (let i = 0; i < keys.length; i++) assign(out, keys[i]!, decode(value[i + 1]));
      else for (let i = 0; i < keys.length; i++) out[keys[i]!] = decode(value[i + 1]);
      return out;
    }
    const mark = marks[-tag - 1];
    const keys = shapes[value[1] as number];
    if (mark === undefined || keys === undefined || keys.length !== value.length - 2) throw new Error('malformed snapshot mark');
    // A mark and nothing else is shared by every holder, as in the live fold (one mark per event,
    // held by each def_seq field it set; marks are never changed in place).
    if (keys.length === 0) return (pureMarks[-tag - 1] ??= { seq: mark[0], at: mark[1], type: mark[2], actor: mark[3], stream: mark[4], summary: mark[5] });
    const out: Record<string, unknown> = { seq: mark[0], at: mark[1], type: mark[2], actor: mark[3], stream: mark[4], summary: mark[5] };
    if (risky[value[1] as number]) for (let i = 0; i < keys.length; i++) assign(out, keys[i]!, decode(value[i + 2]));
    else for (let i = 0; i < keys.length; i++) out[keys[i]!] = decode(value[i + 2]);
    return out;
  };

  const state = checkedState(decode(encoded.root));
  for (const wu of Object.values(state.wus)) {
    // A copy of its own (the fold changes both records' keys in place); their lists are shared, as
    // in the live fold, which replaces a list and never edits one.
    if ((wu.yaml_fields as unknown) === SAME_AS_DEF) wu.yaml_fields = { ...wu.def };
  }
  return state;
}

/** JSON.stringify(a) === JSON.stringify(b) for a definition (text, numbers, lists of text), without the strings. */
export function sameRecord(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i]) return false;
    const x = a[k];
    const y = b[k];
    if (x === y) continue;
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j] || (typeof x[j] === 'object' && x[j] !== null)) return false;
  }
  return true;
}
