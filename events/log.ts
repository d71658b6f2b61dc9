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

/**
 * The last line of the log was a whole event (it parses, its seal holds, it chains) whose newline
 * was missing or damaged: the newline was restored in place, so the acknowledged event stays.
 */
export const LogRepairedData = z.strictObject({
  reason: z.enum(['newline_missing', 'newline_damaged']),
  segment: z.string().min(1),
  /** The event whose line was completed (the last of its batch). */
  seq: z.number().int().min(1),
  /** The byte written: where the newline was appended, or the damaged byte it replaced. */
  offset: z.number().int().min(0),
  bytes_changed: z.literal(1),
  /** The byte that stood where the newline belongs, as two hex digits (null when it was missing). */
  replaced: z
    .string()
    .regex(/^[0-9a-f]{2}$/)
    .nullable(),
});
export type LogRepairedData = z.infer<typeof LogRepairedData>;

export const LOG_EVENTS = eventsOn('log', [
  {
    type: 'log.recovered',
    schema: LogRecoveredData,
    description: 'Recovery moved the bytes of a write torn by a crash to quarantine/ and truncated the segment.',
    internal: true,
  },
  {
    type: 'log.repaired',
    schema: LogRepairedData,
    description: 'Recovery restored the missing or damaged newline of the last line, a whole acknowledged event, in place.',
    internal: true,
  },
]);
