import { canonicalValue } from '../../../events/canonical.js';
import type { EventCatalog } from '../../../events/catalog.js';
import type { StoredEvent } from '../../../events/envelope.js';
import { GENESIS_HASH } from '../../../events/patterns.js';
import { ChainChecker } from '../chain-checker.js';
import type { BadPosition, Head, VerifyReport } from '../contract.js';

const VERIFY_PAGE = 5000;

/** One page of the log's rows after a seq, as verify reads them. */
export const VERIFY_PAGE_SQL = `SELECT seq, id, type, stream, stream_version, data, idempotency_key, batch_end, prev, hash, line
           FROM baton_events WHERE workspace_id = $1 AND seq > $2 ORDER BY seq LIMIT ${VERIFY_PAGE}`;

export interface VerifyRow {
  seq: string;
  id: string;
  type: string;
  stream: string;
  stream_version: number;
  data: unknown;
  idempotency_key: string | null;
  batch_end: string | null;
  /** NULL on rows appended since migration 4: the line holds them. */
  prev: string | null;
  hash: string | null;
  line: string;
}

/** The first column of a row that disagrees with its stored line, or undefined. */
export function columnMismatch(row: VerifyRow, event: StoredEvent, streamVersion: number): string | undefined {
  if (Number(row.seq) !== event.seq) return 'seq';
  if (row.id !== event.id) return 'id';
  if (row.type !== event.type) return 'type';
  if (row.stream !== event.stream) return 'stream';
  if (row.stream_version !== streamVersion) return 'stream_version';
  if (row.prev !== null && row.prev !== event.prev) return 'prev';
  if (row.hash !== null && row.hash !== event.hash) return 'hash';
  if ((row.idempotency_key ?? undefined) !== event.idempotency_key) return 'idempotency_key';
  if ((row.batch_end === null ? undefined : Number(row.batch_end)) !== event.batch_end) return 'batch_end';
  if (canonicalValue(row.data) !== canonicalValue(event.data)) return 'data';
  return undefined;
}

/**
 * Walk the whole log: each stored line through the chain checker (contiguous seq, schema, chain,
 * recomputed hash, canonical bytes), then the columns readers filter and decide on (seq, id,
 * type, stream, stream version, prev and hash where the row has them (rows appended since
 * migration 4 leave them to the line), key, batch end, data) against the line, and finally
 * the head row against the last event.
 */
export async function verifyRows(catalog: EventCatalog, page: (after: number) => Promise<VerifyRow[]>, readHead: () => Promise<Head>): Promise<VerifyReport> {
  const checker = new ChainChecker(catalog);
  const versions = new Map<string, number>();
  let after = 0;
  let offset = 0;
  let last: StoredEvent | undefined;
  const fail = (bad: BadPosition): VerifyReport => ({ ok: false, head_seq: checker.headSeq, checked: checker.checked, first_bad: bad });
  for (;;) {
    const rows = await page(after);
    for (const row of rows) {
      const result = checker.check(row.line, offset);
      if (!result.ok) return fail(result.bad);
      const event = result.event;
      const version = (versions.get(event.stream) ?? 0) + 1;
      versions.set(event.stream, version);
      const mismatch = columnMismatch(row, event, version);
      if (mismatch) return fail({ seq: event.seq, offset, reason: `column ${mismatch} does not match the stored event (tampered)` });
      last = event;
      offset += 1;
    }
    if (rows.length < VERIFY_PAGE) break;
    after = Number(rows.at(-1)!.seq);
  }
  const head = await readHead();
  const expected = last ? { seq: last.seq, hash: last.hash } : { seq: 0, hash: GENESIS_HASH };
  if (head.seq !== expected.seq || head.hash !== expected.hash) {
    return fail({ seq: Math.min(head.seq, expected.seq) + 1, offset, reason: `head row says seq ${head.seq}, the log ends at seq ${expected.seq}` });
  }
  return { ok: true, head_seq: checker.headSeq, checked: checker.checked, first_bad: null };
}
