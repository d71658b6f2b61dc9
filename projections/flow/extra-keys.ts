import type { ExtraKey } from '../../events/flow/flow-events.js';

/**
 * The keys of a state file Baton does not know, rendered back where the file had them: each inside
 * the object its path names, right after the key it followed (first when it came first, last when
 * that key is gone). A key Baton renders itself is never replaced, and a key whose object Baton does
 * not render is left out until it does. Pure; the result is a new object.
 */
export function withExtraKeys(front: Record<string, unknown>, extras: readonly ExtraKey[]): Record<string, unknown> {
  let out = front;
  for (const extra of extras) out = insertAt(out, extra.path, extra.after, extra.value);
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function insertAt(obj: Record<string, unknown>, path: readonly string[], after: string | null, value: unknown): Record<string, unknown> {
  const [key, ...rest] = path;
  if (key === undefined) return obj;
  if (rest.length > 0) {
    const child = obj[key];
    return isObject(child) ? { ...obj, [key]: insertAt(child, rest, after, value) } : obj;
  }
  if (Object.hasOwn(obj, key)) return obj;
  const entries = Object.entries(obj);
  const at = after === null ? 0 : entries.findIndex(([k]) => k === after) + 1 || entries.length;
  entries.splice(at, 0, [key, value]);
  return Object.fromEntries(entries);
}
