/**
 * Records keyed by free strings (actors, paths, branch names) are plain objects, so that states
 * stay plain JSON. On such an object, `record[key]` with a key like `__proto__` or `constructor`
 * reaches Object.prototype or a built-in function, and writing through it pollutes them. These read
 * and write own properties only.
 */

/** The record's own value under `key`, never an inherited one. */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Set the record's own property `key` (`__proto__` included: defined, not assigned). */
export function setOwnValue<T>(record: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
  else record[key] = value;
}
