import { BatonError, invalidInput } from '../../errors.js';
import { runProjection } from '../../store/projection-runner.js';
import type { CommandContext } from '../context.js';
import type { EventStore } from '../../store/contract.js';
import { ViewEnvelope } from '../../app/envelopes/foundation.js';
import { readableLines } from '../readable-text.js';
import { startProgress } from '../progress.js';
import { parseCount, parseIsoTime } from '../flags.js';
import { positionAtTime, projectionForView, replayViewOf, type ReplayViewArgs } from '../../app/replay-view.js';
import { PROJECTIONS } from '../../../projections/index.js';

export type { ReplayViewArgs } from '../../app/replay-view.js';

/** `replay --view NAME (--to SEQ | --at ISO)`: a view as of a past position. */
export async function replay(ctx: CommandContext, flags: { view: string; to?: string; at?: string }, viewArgs: ReplayViewArgs = {}): Promise<void> {
  const projection = projectionForView(flags.view);
  if (!projection) throw invalidInput(`unknown view "${flags.view}" (known: ${Object.keys(PROJECTIONS).sort().join(', ')})`, '--view');
  if ((flags.to === undefined) === (flags.at === undefined)) throw invalidInput('give exactly one of --to SEQ or --at ISO', '--to');
  const store = await ctx.store();
  const progress = startProgress(ctx, `replaying ${flags.view}`);
  let asOf: string;
  let run;
  try {
    const position = await positionOf(ctx, store, flags);
    asOf = position.asOf;
    progress.phase(`replaying ${flags.view}`, { total: position.to, unit: 'events' });
    run = await runProjection(store, projection, {
      catalog: await ctx.catalog(),
      cacheDir: await ctx.cacheDir(),
      now: asOf,
      to: position.to,
      onPosition: progress.set,
    });
    // Done: a position past the head folded to the head.
    progress.set(position.to);
  } finally {
    progress.end();
  }
  const args = { ...viewArgs, ...(await (await import('../tasks-replay-args.js')).tasksReplayArgs(ctx)) };
  const view = await replayViewOf(projection, run.state, asOf, args, () => run.view);
  // File views (flow-file, deep-dive-file) are the rendered text itself, printed as is.
  if (typeof run.view === 'string') {
    process.stdout.write(run.view);
    return;
  }
  // A view that cannot be computed (an unknown WU, a dependency cycle) is the command's error, with
  // its exit code, not a success that prints an error-typed envelope.
  const refusal = view as { type?: unknown; code?: unknown; message?: unknown };
  if (refusal.type === 'error' && typeof refusal.code === 'string') throw new BatonError(refusal.code, String(refusal.message));
  ctx.output.emit(ViewEnvelope, view as { v: 1; type: string; generated_at: string }, (v) => readableLines(v).join('\n'));
}

/** The seq to replay to, and the clock of that position. */
async function positionOf(ctx: CommandContext, store: EventStore, flags: { to?: string; at?: string }): Promise<{ to: number; asOf: string }> {
  if (flags.to !== undefined) {
    const to = parseCount(flags.to, '--to');
    // The clock of a past position is the time of its last event, so time-dependent views
    // (staleness, abandonment) read as they did then.
    let asOf = ctx.now;
    for await (const event of store.read({ from: to, to })) asOf = event.at;
    return { to, asOf };
  }
  const asOf = parseIsoTime(flags.at!, '--at');
  return { to: await positionAtTime(store.read({}), Date.parse(asOf)), asOf };
}
