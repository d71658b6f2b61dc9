import type { Decision } from './decision.js';

/**
 * The audited override of `wu prep`'s directed-signal gate (coordination.md §10): once the rest of
 * `wu prep` passed, the signals the gate waived are recorded with the reason, on the WU's stream.
 * Nothing waived (the gate passed on its own) or no reader (observer mode) is nothing to record;
 * the waived signals stay unread.
 */
export interface RecordPrepOverride {
  wuId: string;
  reason: string;
  /** What the gate answered: who reads, from which session, and the signals it waived. */
  gate: { reader_identity: string | null; session_id: string | null; overridden_signal_ids: readonly string[] };
}

export function decidePrepOverride(command: RecordPrepOverride): Decision<null> | null {
  const { gate, wuId } = command;
  if (gate.overridden_signal_ids.length === 0 || gate.reader_identity === null) return null;
  const data = {
    wu_id: wuId,
    session_id: gate.session_id,
    reader_identity: gate.reader_identity,
    reason: command.reason,
    signal_ids: [...gate.overridden_signal_ids],
  };
  return { events: [{ type: 'wu.prep_overridden', stream: `wu/${wuId}`, data }], expected: {}, outcome: null };
}
