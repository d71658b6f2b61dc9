import type { ReceiptVia } from '../../events/coordination/vocabulary.js';
import type { EventCatalog } from '../../events/catalog.js';
import type { CoordinationState } from '../../projections/coordination/state.js';
import { decideReceipts } from '../../deciders/receipts.js';
import type { EventStore } from '../store/contract.js';
import { handleCommand, type ActingAs } from '../store/handle-command.js';

/** Who writes the receipts of a read, and when. */
export interface ReceiptWriter {
  store: EventStore;
  catalog: EventCatalog;
  actor: string;
  now: string;
  /** The session the reader acts as, checked by the handler (coordination/acting.ts `actingIn`). */
  acting?: ActingAs<CoordinationState> | undefined;
}

/**
 * Record that `reader` was shown `signalIds` (deciders/receipts.ts decides which are new). The
 * state is the fold the read was made from: a receipt names no expected version, so it is never
 * read again.
 */
export async function recordReceipts(
  writer: ReceiptWriter,
  state: CoordinationState,
  read: { signalIds: readonly string[]; reader: string; session: string | null; via: ReceiptVia },
): Promise<number> {
  const handled = await handleCommand({ ...writer, read: async () => state }, (s) => decideReceipts({ ...read, now: writer.now }, s));
  return handled.appended.length;
}
