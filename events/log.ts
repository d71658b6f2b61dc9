import { z } from 'zod';
import { eventsOn } from './catalog.js';

/** Facts the store records about itself, on streams under `log/`. */
export const LogRecoveredData = z.strictObject({
  reason: z.enum(['torn_tail', 'incomplete_batch']),
  segment: z.string().min(1),
  offset: z.number().int().min(0),
  bytes: z.number().int().min(1),
  quarantined_to: z.string().min(1),
  /** Complete lines of an unfinished batch that were moved aside with the torn bytes. */
  lines_dropped: z.number().int().min(0),
});
export type LogRecoveredData = z.infer<typeof LogRecoveredData>;

export const LOG_EVENTS = eventsOn('log', [
  { type: 'log.recovered', schema: LogRecoveredData, description: 'Recovery moved the bytes of a write torn by a crash to quarantine/ and truncated the segment.', internal: true },
]);
