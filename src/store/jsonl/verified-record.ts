import type { LogHandle } from './log-handle.js';
import { listSegments, scanFrom, type Cursor, type Segment } from './segment-scan.js';
import { sameIdentity, saveVerifiedPrefix, statIdentity } from './verified-prefix.js';
import type { VerifiedSegment } from './verified-prefix-schema.js';

/**
 * Record what this handle checked (verified-prefix.ts), so the next writer checks only what
 * changed since. The segment it ends in is re-stat'ed now: when others appended meanwhile, their
 * lines are checked first (without the lock: a write in flight just means no record this time).
 */
export function recordVerifiedPrefix(log: LogHandle): void {
  const entries = log.verifiedSegments;
  const tail = log.tail;
  if (entries === undefined || tail === undefined || tail.segment.name === '' || tail.prevHash === undefined) return;
  try {
    const segments = listSegments(log.layout.log);
    const index = segments.findIndex((s) => s.name === tail.segment.name);
    const sealed = entries.filter((e) => e.name !== tail.segment.name);
    // The record must name the log's segments in order, from its first, up to the tail's.
    if (index < 0 || sealed.length !== index || sealed.some((e, i) => e.name !== segments[i]!.name)) return;
    const live = liveSegmentEntry(entries, tail, segments);
    if (live === undefined) return;
    const record = [...sealed, live];
    const text = JSON.stringify(record);
    if (text === log.verifiedSaved) return;
    saveVerifiedPrefix(log.layout.cache, record);
    log.verifiedSaved = text;
  } catch {
    // Not recorded: the next writer checks from the first segment that changed.
  }
}

/** The entry of the segment the tail is in, as it is now; undefined when it cannot be vouched for. */
function liveSegmentEntry(entries: readonly VerifiedSegment[], tail: Cursor, segments: readonly Segment[]): VerifiedSegment | undefined {
  const previous = entries.find((e) => e.name === tail.segment.name);
  const identity = statIdentity(tail.segment.path);
  if (previous !== undefined && sameIdentity(identity, previous)) return previous;
  if (identity === undefined) return undefined;
  let at: Cursor = tail;
  if (Number(identity.size) !== tail.offset) {
    const scan = scanFrom(segments, tail);
    let step = scan.next();
    while (!step.done) step = scan.next();
    const end = step.value;
    if (end.cursor.segment.name !== tail.segment.name || end.cursor.offset !== Number(identity.size) || end.uncommittedBytes > 0) return undefined;
    at = end.cursor;
  }
  if (at.prevHash === undefined) return undefined;
  return { name: tail.segment.name, ...identity, last_seq: at.seq - 1, last_hash: at.prevHash };
}

/** The segment being rolled away from is complete and checked: recorded as such (under the lock). */
export function sealVerifiedSegment(log: LogHandle, segment: Segment, tail: Cursor): void {
  if (log.verifiedSegments === undefined || tail.prevHash === undefined) return;
  const rest = log.verifiedSegments.filter((e) => e.name !== segment.name);
  const identity = statIdentity(segment.path);
  if (identity === undefined || Number(identity.size) !== tail.offset) {
    log.verifiedSegments = undefined;
    return;
  }
  log.verifiedSegments = [...rest, { name: segment.name, ...identity, last_seq: tail.seq - 1, last_hash: tail.prevHash }];
}
