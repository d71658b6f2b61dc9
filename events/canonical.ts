/**
 * Canonical JSON: the one byte form every adapter and export agrees on, so the hash chain is
 * reproducible anywhere. Envelope keys in the fixed order below; keys inside `data` sorted at
 * every depth; no spaces. A stored JSONL line is exactly `canonicalEvent(event)`.
 */

/** Envelope fields in hash order. Optional ones are omitted when absent. */
export const ENVELOPE_KEY_ORDER = [
  'v',
  'seq',
  'id',
  'type',
  'stream',
  'at',
  'actor',
  'data',
  'idempotency_key',
  'batch_end',
  'prev',
  'hash',
] as const;

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

/** The envelope in canonical form; `withHash: false` gives the bytes the hash is taken over. */
export function canonicalEnvelope(event: Record<string, unknown>, withHash: boolean): string {
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
