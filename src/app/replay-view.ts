import { PROJECTIONS } from '../../projections/index.js';
import type { AnyProjection } from '../../projections/projection.js';
import { refusalsAsErrors } from '../tasks/refusals.js';

/**
 * What `replay --view NAME (--to SEQ | --at ISO)` computes, in pieces `replay` and `baton serve`
 * share, so the dashboard's time travel shows exactly what `replay` prints.
 */

/** View arguments some views take (the same flags as their commands), in snake_case. */
export type ReplayViewArgs = Record<string, string | boolean | undefined>;

/** The projection behind a view name; names given with dashes (`flow-file`) use underscores. */
export function projectionForView(view: string): AnyProjection | undefined {
  return PROJECTIONS[view] ?? PROJECTIONS[view.replace(/-/g, '_')];
}

/**
 * The position of `--at`: every event recorded at or before that time. `at` comes from each
 * command's clock, so it can step back between processes: the last event at or before the time
 * is taken, not the first one after it.
 */
export async function positionAtTime(
  events: Iterable<{ seq: number; at: string }> | AsyncIterable<{ seq: number; at: string }>,
  limit: number,
): Promise<number> {
  let to = 0;
  for await (const event of events) {
    if (Date.parse(event.at) <= limit) to = event.seq;
  }
  return to;
}

/**
 * The view of a folded state as of `asOf` (the clock of the position: the time of its last event).
 * A view that takes arguments gets them; a refusal of the view becomes the command's error. A view
 * without arguments is `plainView()` (the runner's `view`, computed only when it is the answer).
 */
export async function replayViewOf(projection: AnyProjection, state: unknown, asOf: string, args: ReplayViewArgs, plainView: () => unknown): Promise<unknown> {
  const withArgs = projection as AnyProjection & { viewWith?: (state: unknown, now: string, args: ReplayViewArgs) => unknown };
  return withArgs.viewWith ? await refusalsAsErrors(() => withArgs.viewWith!(state, asOf, args)) : plainView();
}
