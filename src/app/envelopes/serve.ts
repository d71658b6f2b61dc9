import { z } from 'zod';

/** What `baton serve` prints once it listens: where the dashboard is, token included. */
export const ServingEnvelope = z.strictObject({
  v: z.literal(1),
  type: z.literal('serving'),
  generated_at: z.iso.datetime(),
  url: z.string(),
  host: z.string(),
  port: z.number().int().min(1).max(65535),
  exposed: z.boolean(),
  store: z.string(),
  head_seq: z.number().int().min(0),
});
