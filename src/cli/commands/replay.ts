import { PROJECTIONS } from '../../../projections/index.js';
import { invalidInput } from '../../errors.js';
import { runProjection } from '../../store/projection-runner.js';
import type { CommandContext } from '../context.js';
import { ViewEnvelope } from '../envelopes.js';
import { parseCount, parseIsoTime } from '../flags.js';

/** `replay --view NAME (--to SEQ | --at ISO)`: a view as of a past position. */
/** View arguments some views take (the same flags as their commands), in snake_case. */
export type ReplayViewArgs = Record<string, string | boolean | undefined>;

export async function replay(ctx: CommandContext, flags: { view: string; to?: string; at?: string }, viewArgs: ReplayViewArgs = {}): Promise<void> {
  // Views named with dashes on the command line (`flow-file`) are projections named with underscores.
  const projection = PROJECTIONS[flags.view] ?? PROJECTIONS[flags.view.replace(/-/g, '_')];
  if (!projection) throw invalidInput(`unknown view "${flags.view}" (known: ${Object.keys(PROJECTIONS).sort().join(', ')})`, '--view');
  if ((flags.to === undefined) === (flags.at === undefined)) throw invalidInput('give exactly one of --to SEQ or --at ISO', '--to');
  const store = await ctx.store();
  let to: number;
  let asOf: string;
  if (flags.to !== undefined) {
    to = parseCount(flags.to, '--to');
    // The clock of a past position is the time of its last event, so time-dependent views
    // (staleness, abandonment) read as they did then.
    asOf = ctx.now;
    for await (const event of store.read({ from: to, to })) asOf = event.at;
  } else {
    asOf = parseIsoTime(flags.at!, '--at');
    // The position of --at: every event recorded at or before that time. `at` comes from each
    // command's clock, so it can step back between processes; the scan reads the whole log and
    // takes the last event at or before the time, not the first one after it.
    to = 0;
    const limit = Date.parse(asOf);
    for await (const event of store.read({})) {
      if (Date.parse(event.at) <= limit) to = event.seq;
    }
  }
  const run = await runProjection(store, projection, { catalog: await ctx.catalog(), cacheDir: await ctx.cacheDir(), now: asOf, to });
  const withArgs = projection as typeof projection & { viewWith?: (state: unknown, now: string, args: ReplayViewArgs) => unknown };
  const args = { ...viewArgs, ...(await (await import('../tasks-replay-args.js')).tasksReplayArgs(ctx)) };
  const { refusalsAsErrors } = await import('../../tasks/refusals.js');
  const view = withArgs.viewWith ? await refusalsAsErrors(() => withArgs.viewWith!(run.state, asOf, args)) : run.view;
  // File views (flow-file, deep-dive-file) are the rendered text itself, printed as is.
  if (typeof run.view === 'string') {
    process.stdout.write(run.view);
    return;
  }
  ctx.output.emit(ViewEnvelope, view as { v: 1; type: string; generated_at: string }, (v) => JSON.stringify(v, null, 2));
}
