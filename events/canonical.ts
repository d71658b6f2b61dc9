/**
 * Canonical JSON: the one byte form every adapter and export agrees on, so the hash chain is
 * reproducible anywhere. Envelope keys in the fixed order below; keys inside `data` sorted at
 * every depth; no spaces. A stored JSONL line is exactly `canonicalEvent(event)`.
 */

/** Envelope fields in hash order. Optional ones are omitted when absent. */
export const ENVELOPE_KEY_ORDER = ['v', 'seq', 'id', 'type', 'stream', 'at', 'actor', 'data', 'idempotency_key', 'batch_end', 'prev', 'hash'] as const;

export function canonicalValue(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('canonical JSON cannot hold a non-finite number');
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ',';
          const item: unknown = value[i];
          out += item === undefined ? 'null' : canonicalValue(item);
        }
        return out + ']';
      }
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      let out = '{';
      let first = true;
      for (const key of keys) {
        const item = record[key];
        if (item === undefined) continue;
        if (!first) out += ',';
        first = false;
        out += JSON.stringify(key) + ':' + canonicalValue(item);
      }
      return out + '}';
    }
    default:
      throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
  }
}

/**
 * Whether the native `JSON.stringify(value)` is exactly `canonicalValue(value)`: plain objects whose
 * keys are already sorted, arrays, finite numbers, strings, booleans and null, at every depth.
 * Anything else (unsorted keys, undefined, a class instance, a non-finite number) takes the slow path.
 */
export function isJsonReady(value: unknown): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!isJsonReady(value[i])) return false;
        return true;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      const keys = Object.keys(value);
      for (let i = 0; i < keys.length; i++) {
        if (i > 0 && !(keys[i - 1]! < keys[i]!)) return false;
        if (!isJsonReady((value as Record<string, unknown>)[keys[i]!])) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

const readyOrAbsent = (value: unknown): boolean => value === undefined || isJsonReady(value);

/** The envelope in canonical form; `withHash: false` gives the bytes the hash is taken over. */
export function canonicalEnvelope(event: Record<string, unknown>, withHash: boolean): string {
  // Fast path (appends canonicalise every event): one object literal with the fields in envelope
  // order (one hidden class; JSON.stringify leaves out the undefined ones, as the definition does)
  // printed by the native JSON.stringify when every value is already in canonical shape. Building
  // it key by key in a loop costs more per event (keyed stores go through a megamorphic path).
  const ordered = {
    v: event['v'],
    seq: event['seq'],
    id: event['id'],
    type: event['type'],
    stream: event['stream'],
    at: event['at'],
    actor: event['actor'],
    data: event['data'],
    idempotency_key: event['idempotency_key'],
    batch_end: event['batch_end'],
    prev: event['prev'],
    hash: withHash ? event['hash'] : undefined,
  };
  if (
    readyOrAbsent(ordered.v) &&
    readyOrAbsent(ordered.seq) &&
    readyOrAbsent(ordered.id) &&
    readyOrAbsent(ordered.type) &&
    readyOrAbsent(ordered.stream) &&
    readyOrAbsent(ordered.at) &&
    readyOrAbsent(ordered.actor) &&
    readyOrAbsent(ordered.data) &&
    readyOrAbsent(ordered.idempotency_key) &&
    readyOrAbsent(ordered.batch_end) &&
    readyOrAbsent(ordered.prev) &&
    readyOrAbsent(ordered.hash)
  ) {
    return JSON.stringify(ordered);
  }
  let out = '{';
  let first = true;
  for (const key of ENVELOPE_KEY_ORDER) {
    if (key === 'hash' && !withHash) continue;
    const item = event[key];
    if (item === undefined) continue;
    if (!first) out += ',';
    first = false;
    out += '"' + key + '":' + canonicalValue(item);
  }
  return out + '}';
}
