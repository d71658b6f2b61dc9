import type { StoredEvent } from '../../../events/envelope.js';
import { LogCorruptError } from '../../errors.js';

/** The read side of the PostgreSQL adapter: the page queries of `read` and `subscribe`, and the link check of an unfiltered read. */

/** Rows per page of a read or a subscription pull. */
export const PAGE = 1000;

export interface LineRow {
  seq: string;
  line: string;
}

/** One page of a read: $1 workspace, $2 from seq, $3 to seq, $4 streams (null: all), $5 types (null: all). */
export const READ_PAGE_SQL = `SELECT seq, line FROM baton_events
           WHERE workspace_id = $1 AND seq >= $2 AND seq <= $3
             AND ($4::text[] IS NULL OR stream = ANY($4::text[])) AND ($5::text[] IS NULL OR type = ANY($5::text[]))
           ORDER BY seq LIMIT ${PAGE}`;

/** One page of a subscription pull, with the committed head beside each row: $1 workspace, $2 from seq. */
export const SUBSCRIBE_PAGE_SQL = `SELECT e.seq, e.line, (SELECT h.seq FROM baton_heads h WHERE h.workspace_id = $1) AS head
           FROM baton_events e WHERE e.workspace_id = $1 AND e.seq >= $2 ORDER BY e.seq LIMIT ${PAGE}`;

export /** An unfiltered read's event follows the one before it (or starts the read at `from`): no hole, and its `prev` links. */
function checkLink(event: StoredEvent, previous: StoredEvent | undefined, from: number): void {
  const expected = previous ? previous.seq + 1 : from;
  if (event.seq !== expected) {
    throw new LogCorruptError(`event at seq ${expected} is missing from the log`, {
      seq: expected,
      offset: expected - 1,
      reason: 'missing event (hole in seq)',
    });
  }
  if (previous && event.prev !== previous.hash) {
    throw new LogCorruptError(`event at seq ${event.seq} does not link to the previous hash`, {
      seq: event.seq,
      offset: event.seq - 1,
      reason: 'prev does not match the previous event hash (chain broken)',
    });
  }
}
