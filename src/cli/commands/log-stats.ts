import { logStatsProjection } from '../../../projections/log-stats.js';
import { runProjection } from '../../store/projection-runner.js';
import type { CommandContext } from '../context.js';
import { LogStatsEnvelope } from '../../app/envelopes/foundation.js';

export async function logStats(ctx: CommandContext): Promise<void> {
  const store = await ctx.store();
  const [run, storage] = await Promise.all([
    runProjection(store, logStatsProjection, { catalog: await ctx.catalog(), cacheDir: await ctx.cacheDir(), now: ctx.now }),
    store.storageInfo(),
  ]);
  const view = run.view;
  ctx.output.emit(
    LogStatsEnvelope,
    {
      v: 1,
      type: 'log_stats',
      generated_at: ctx.now,
      head_seq: view.head_seq,
      head_hash: view.head_hash,
      events: view.events,
      streams: view.streams,
      segments: storage.segments,
      bytes: storage.bytes,
      by_type: view.by_type,
    },
    (s) =>
      [
        `head seq ${s.head_seq} (${s.head_hash.slice(0, 12)})`,
        `${s.events} events on ${s.streams} streams, ${s.segments} segment(s), ${s.bytes} bytes`,
        ...Object.entries(s.by_type).map(([type, n]) => `  ${type}: ${n}`),
      ].join('\n'),
  );
}
