import type { StoredEvent } from '../../events/envelope.js';

/**
 * Human text for output that has no renderer of its own: a view `replay` computes, an event
 * `log tail` prints. Nested values become indented `key: value` lines (arrays as `- ` items), so a
 * person reads them without a JSON viewer; `--json` (or a pipe) still gets the envelope itself.
 */
export function readableLines(value: unknown, indent = ''): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${indent}(none)`];
    return value.flatMap((item) => {
      const [first = '', ...rest] = readableLines(item, `${indent}  `);
      return [`${indent}- ${first.trimStart()}`, ...rest];
    });
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return [`${indent}(empty)`];
    return entries.flatMap(([key, item]) =>
      isScalar(item) || isEmpty(item) ? [`${indent}${key}: ${scalar(item)}`] : [`${indent}${key}:`, ...readableLines(item, `${indent}  `)],
    );
  }
  return [`${indent}${scalar(value)}`];
}

function isScalar(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}

function isEmpty(value: unknown): boolean {
  return (Array.isArray(value) && value.length === 0) || (value !== null && typeof value === 'object' && Object.keys(value).length === 0);
}

function scalar(value: unknown): string {
  if (Array.isArray(value)) return '(none)';
  if (value !== null && typeof value === 'object') return '(empty)';
  if (typeof value === 'string') return value;
  return String(value);
}

/** One event on one line: `#12 2026-11-22T09:00:00.000Z note.recorded note/ops by system  {"text":"…"}`. */
export function eventLine(event: Pick<StoredEvent, 'seq' | 'at' | 'type' | 'stream' | 'actor' | 'data'>): string {
  return `#${event.seq} ${event.at} ${event.type} ${event.stream} by ${event.actor}  ${JSON.stringify(event.data)}`;
}
