/**
 * Strict patterns for names that reach the log or become file names. Checked at the boundary so no
 * id can escape its folder and no type can be misspelt into the catalog.
 */

/** The envelope version (`v`) of every event. */
export const ENVELOPE_VERSION = 1;

/** Dotted, lower-case: `wu.claimed`, `signal.sent`, `note.recorded`. */
export const EVENT_TYPE_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/** `<category>/<id>`: `wu/WU-2632`, `task/task_ab12`, `session/sess_01J…`, `note/ops`. */
export const STREAM_PATTERN = /^[a-z][a-z0-9_-]{0,31}\/[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;

/** Idempotency keys are opaque to Baton but bounded and printable. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,200}$/;

export const HASH_PATTERN = /^[0-9a-f]{64}$/;

/** The `prev` of the first event. */
export const GENESIS_HASH = '0'.repeat(64);

export function streamCategory(stream: string): string {
  const slash = stream.indexOf('/');
  return slash < 0 ? stream : stream.slice(0, slash);
}
