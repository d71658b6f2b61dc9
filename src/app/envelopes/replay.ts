import { z } from 'zod';
import { ConvergenceEnvelope } from './coordination.js';
import { LogStatsEnvelope } from './foundation.js';

/**
 * Envelopes only `replay --view convergence` prints: without `--thread`, every thread's
 * convergence; with a thread the log has not seen (yet, at that position), its id and no state.
 */
export const ConvergencesEnvelope = z.strictObject({
  v: z.literal(1),
  type: z.literal('convergences'),
  generated_at: z.iso.datetime(),
  threads: z.array(ConvergenceEnvelope),
});

export const UnknownThreadConvergenceEnvelope = z.strictObject({
  v: z.literal(1),
  type: z.literal('convergence'),
  generated_at: z.iso.datetime(),
  thread_id: z.string(),
  state: z.null(),
});

/**
 * `replay --view log_stats`: the log-stats fold as of a past position. Segments and bytes are the
 * files on disk now, which a past position does not have, so `log stats` alone prints them.
 */
export const ReplayedLogStatsEnvelope = LogStatsEnvelope.omit({ segments: true, bytes: true });
