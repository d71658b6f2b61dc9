import type { Cursor, ScannedEvent, Segment } from './segment-scan.js';
import { cursorFor, startCursor } from './segment-seek.js';
import { loadVerifiedPrefix, sameIdentity, statIdentity, trustedStart, type FileIdentity } from './verified-prefix.js';

/**
 * Where a read from a seq starts scanning, so that no line before what it hands out goes unchecked.
 *
 * A read from seq S could seek straight to S's line (segment-scan.ts cursorFor) and read on from
 * there; alone, that hands out the end of a log whose middle is damaged, while a full read of the
 * same log stops at the damage (LOG_CORRUPT). So a read skips only lines that were checked and whose
 * files have not changed since: the leading segments the verified-prefix record vouches for
 * (verified-prefix.ts: checked by a writer, with each file's identity then), and what this handle's
 * own earlier reads checked while the files keep the identity they had. When S lies beyond that
 * checked prefix, the scan starts where the prefix ends (else at the log's first byte) and the caller
 * drops the events before S: every line on the way gets the checks scanRuns gives (envelope, seq,
 * prev, seal), and the first damaged one fails the read before any event is handed out.
 *
 * On a healthy log whose record is current (every CLI append leaves it so), the prefix reaches the
 * head and a read costs what it did plus a few stats and one small read. A record left behind by a
 * writer still open (it records on its first write and on close) stops vouching for the segment
 * being appended to, whose lines are then checked from its start; the handle's own reads remember
 * how far they checked, so one command reading the log several times checks those lines once.
 *
 * The bytes after the last complete event (a torn or in-flight write) are no part of the log:
 * scanRuns leaves them out, as it does for any read.
 */
interface CheckedThrough {
  /** The first position not checked: everything before it was. */
  cursor: Cursor;
  /** The segments from the log's first through the cursor's, with their identity before the read that checked them. */
  files: { name: string; identity: FileIdentity }[];
}

/** Where one read starts, with what it saw of the segments before reading (for CheckedPrefix.extendTo). */
export interface ReadStart {
  cursor: Cursor;
  segments: readonly Segment[];
  /** Each segment's identity before anything was read (undefined: it could not be stat'ed). */
  identities: readonly (FileIdentity | undefined)[];
}

export class CheckedPrefix {
  private through: CheckedThrough | undefined;
  /** Set once a read met a corrupt line: then the handle remembers nothing it checked (see forget). */
  private distrusted = false;

  constructor(private readonly cacheDir: string) {}

  /** Where a read of the events from `from` on starts scanning (undefined: the log has no segment). */
  startFor(segments: readonly Segment[], from: number): ReadStart | undefined {
    const first = startCursor(segments);
    if (first === undefined) return undefined;
    // Stat'ed before any line is read: a change made while they are read then shows next time.
    const identities = segments.map((segment) => statIdentity(segment.path));
    // A read from the log's first line checks every line anyway.
    if (from <= first.seq) return { cursor: first, segments, identities };
    const end = this.checkedEnd(segments, identities);
    return { cursor: from < end.seq ? (cursorFor(segments, from) ?? first) : end, segments, identities };
  }

  /**
   * The read started at `start` handed over `last`: every line up to it was checked, or lies in the
   * checked prefix, so later reads of this handle may skip them while the files stay as they were.
   */
  extendTo(start: ReadStart, last: ScannedEvent): void {
    if (this.distrusted || (this.through !== undefined && this.through.cursor.seq > last.event.seq)) return;
    const index = start.segments.findIndex((segment) => segment.name === last.segment.name);
    if (index < 0) return;
    const files: CheckedThrough['files'] = [];
    for (let i = 0; i <= index; i++) {
      const identity = start.identities[i];
      if (identity === undefined) return;
      files.push({ name: start.segments[i]!.name, identity });
    }
    this.through = { cursor: { segment: last.segment, offset: last.offset + last.length, seq: last.event.seq + 1, prevHash: last.event.hash }, files };
  }

  /**
   * A read met a corrupt line. Where the files' identity did not show it (bit rot), what was
   * checked before may be damaged too: from now on every read of this handle checks from the
   * verified-prefix record (which the store drops too), as a fresh handle would.
   */
  forget(): void {
    this.through = undefined;
    this.distrusted = true;
  }

  /** The first position not known checked: the further of the record's end and this handle's own. */
  private checkedEnd(segments: readonly Segment[], identities: readonly (FileIdentity | undefined)[]): Cursor {
    const recorded = trustedStart(loadVerifiedPrefix(this.cacheDir), segments)!.cursor;
    const own = this.through;
    if (own === undefined) return recorded;
    if (!own.files.every((file, i) => segments[i]?.name === file.name && sameIdentity(identities[i], file.identity))) {
      this.through = undefined;
      return recorded;
    }
    return own.cursor.seq > recorded.seq ? own.cursor : recorded;
  }
}
