import { z } from 'zod';

/**
 * The shape of `.baton/cache/verified-prefix.json` (verified-prefix.ts). Checked with the compiled
 * validator (src/validators.generated.ts), so an append loads no zod to read it.
 */
const decimal = z.string().regex(/^\d{1,30}$/);

export const VerifiedSegmentSchema = z.object({
  name: z.string(),
  /** The segment file's identity when every line of it was checked: inode, size, mtime and ctime (ns). */
  ino: decimal,
  size: decimal,
  mtime_ns: decimal,
  ctime_ns: decimal,
  /** The last event in it (for an empty segment: the one before it). */
  last_seq: z.number().int().min(0),
  last_hash: z.string().regex(/^[0-9a-f]{64}$/),
});
export type VerifiedSegment = z.infer<typeof VerifiedSegmentSchema>;

export const VerifiedPrefixSchema = z.object({
  version: z.literal(1),
  /** The log's first segments, in order, each checked line by line from its first byte to its end. */
  segments: z.array(VerifiedSegmentSchema),
});
export type VerifiedPrefix = z.infer<typeof VerifiedPrefixSchema>;
