import { depsOf, isDone } from './evidence.js';
import type { WorkUnitsState, WuRecord } from './records.js';

/**
 * The WU records of a state read from a paged snapshot (paged-codec.ts), decoded when first
 * touched. A read of one WU or one initiative decodes only the records it looks at; a question
 * about every WU (lane holders, dependency cycles, which initiatives are finished) is answered from
 * each record's summary, written beside it, until the record itself is needed.
 *
 * The map is a plain object to every reader: `state.wus[id]`, `Object.keys`, `Object.values`,
 * `Object.hasOwn`, assignment and JSON all behave as on the object the fold built (same keys, same
 * order), so every view is byte-identical whichever way the state was loaded; a reader that walks
 * every record simply decodes them all. Pure: the bytes are given, nothing is read here.
 */

/** What questions about every WU need of one, without its record. */
export interface WuSummary {
  defined: boolean;
  /** isDone (evidence.ts): stamped, or its YAML status is terminal. */
  done: boolean;
  initiative: string | null;
  lane: string | null;
  /** depsOf (evidence.ts). */
  deps: readonly string[];
}

export function summarize(wu: WuRecord): WuSummary {
  return { defined: wu.defined, done: isDone(wu), initiative: wu.def.initiative ?? null, lane: wu.def.lane ?? null, deps: depsOf(wu) };
}

/** The records not decoded yet, by map: id → its summary. */
const pendingByMap = new WeakMap<object, Map<string, { index: number; summary: WuSummary }>>();

/** The summary of a WU whose record is not decoded yet; undefined once it is (or when the state is not lazy). */
function pendingSummary(state: WorkUnitsState, id: string): WuSummary | undefined {
  return pendingByMap.get(state.wus)?.get(id)?.summary;
}

/** A WU's summary, from its record when decoded, else from the snapshot; undefined for an unknown WU. */
export function wuSummary(state: WorkUnitsState, id: string): WuSummary | undefined {
  const pending = pendingSummary(state, id);
  if (pending !== undefined) return pending;
  const wu = Object.hasOwn(state.wus, id) ? state.wus[id] : undefined;
  return wu === undefined ? undefined : summarize(wu);
}

/** Whether the WU is done (isDone), from its summary while its record is not decoded. An unknown WU never is. */
export function isDoneById(state: WorkUnitsState, id: string): boolean {
  return wuSummary(state, id)?.done === true;
}

/** Every WU that may not be done (its record, decoded), in key order: the ones a question about live work needs. */
export function* recordsNotDone(state: WorkUnitsState): Generator<WuRecord> {
  const pending = pendingByMap.get(state.wus);
  for (const id of Object.keys(state.wus)) {
    if (pending?.get(id)?.summary.done === true) continue;
    yield state.wus[id]!;
  }
}

/** A key V8 orders before the others, ascending (an array index), as every plain object does. */
const isIndexKey = (key: string): boolean => /^(0|[1-9][0-9]*)$/.test(key) && Number(key) < 4294967295;

/**
 * A record map over `ids` (in their original key order), each decoded by `decode(index)` on first
 * touch. Keys added later go after them, as on a plain object.
 */
export function lazyRecords(ids: readonly string[], summaries: readonly WuSummary[], decode: (index: number) => WuRecord): Record<string, WuRecord> {
  const target: Record<string, WuRecord> = {};
  const pending = new Map<string, { index: number; summary: WuSummary }>();
  ids.forEach((id, index) => pending.set(id, { index, summary: summaries[index]! }));
  let order: string[] = [...ids];
  let indexKeys = ids.some(isIndexKey);

  const take = (key: string | symbol): void => {
    if (typeof key !== 'string') return;
    const entry = pending.get(key);
    if (entry === undefined) return;
    pending.delete(key);
    Object.defineProperty(target, key, { value: decode(entry.index), writable: true, enumerable: true, configurable: true });
  };
  /** A key being written: a pending record it replaces stays in its place; a new key goes last. */
  const written = (key: string | symbol): void => {
    if (typeof key !== 'string') return;
    if (pending.delete(key) || Object.hasOwn(target, key)) return;
    order.push(key);
    if (isIndexKey(key)) indexKeys = true;
  };
  const proxy = new Proxy(target, {
    get(t, key, receiver) {
      take(key);
      return Reflect.get(t, key, receiver) as unknown;
    },
    getOwnPropertyDescriptor(t, key) {
      // Asking whether a record is there (Object.keys, Object.hasOwn) does not decode it: a pending
      // record is described by a getter that does (a read of its value goes through `get`).
      if (typeof key === 'string' && pending.has(key)) return { get: () => proxy[key], enumerable: true, configurable: true };
      return Reflect.getOwnPropertyDescriptor(t, key);
    },
    has(t, key) {
      return (typeof key === 'string' && pending.has(key)) || Reflect.has(t, key);
    },
    set(t, key, value) {
      written(key);
      return Reflect.set(t, key, value);
    },
    defineProperty(t, key, descriptor) {
      written(key);
      return Reflect.defineProperty(t, key, descriptor);
    },
    deleteProperty(t, key) {
      if (typeof key === 'string') {
        pending.delete(key);
        order = order.filter((k) => k !== key);
      }
      return Reflect.deleteProperty(t, key);
    },
    ownKeys(t) {
      const keys = order.filter((k) => pending.has(k) || Object.hasOwn(t, k));
      if (!indexKeys) return keys;
      // A plain object lists its array-index keys first, ascending, then the rest in insertion order.
      const index = keys.filter(isIndexKey).sort((a, b) => Number(a) - Number(b));
      return [...index, ...keys.filter((k) => !isIndexKey(k))];
    },
  });
  pendingByMap.set(proxy, pending);
  return proxy;
}
