import { z } from 'zod';

/**
 * The shape of `.baton/cache/store-index.json`. index-cache.ts checks it with the compiled
 * validator (src/validators.generated.ts), so opening a store loads no zod.
 */
export const IndexCacheSchema = z.object({
  version: z.literal(1),
  segment: z.string(),
  offset: z.number().int().min(0),
  seq: z.number().int().min(0),
  hash: z.string(),
  streams: z.array(z.tuple([z.string(), z.number().int()])),
  idempotency: z.array(z.tuple([z.string(), z.object({ digest: z.string(), first: z.number().int(), last: z.number().int() })])),
});
export type IndexCache = z.infer<typeof IndexCacheSchema>;
