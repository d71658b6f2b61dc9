import { lifecycleIndex, machineEventKey, WU_LIFECYCLES, type WuLifecycle } from './work-unit-lifecycle.js';
import { WU_STEP_EVENTS, WU_STEP_TABLE } from './work-unit-steps.generated.js';
import type { WuMachineEvent } from './work-unit.js';

/**
 * The `wu` machine compiled to a lookup table, for folding history fast and without xstate (its
 * `transition()` is far too slow per event for a replay, and loading xstate costs a short command). The table is the machine's
 * own answer for every (lifecycle, event) pair, computed at build time by
 * scripts/generate-machine-tables.ts; test/work-units/wu-machine.test.ts checks the generated table
 * is current and equals the machine on the whole space.
 */
export type { WuLifecycle } from './work-unit-lifecycle.js';
export { INITIAL_WU_LIFECYCLE, machineEventKey } from './work-unit-lifecycle.js';

const EVENT_INDEX = new Map(WU_STEP_EVENTS.map((key, i) => [key, i]));

/** The next lifecycle, or null when the machine rejects the event. Returns a fresh object. */
export function stepWu(current: WuLifecycle, event: WuMachineEvent): WuLifecycle | null {
  const from = lifecycleIndex(current);
  const e = EVENT_INDEX.get(machineEventKey(event));
  if (from < 0 || e === undefined) throw new Error(`not a wu lifecycle and machine event: ${JSON.stringify(current)} ${JSON.stringify(event)}`);
  const to = WU_STEP_TABLE[from * WU_STEP_EVENTS.length + e]!;
  if (to < 0) return null;
  const next = WU_LIFECYCLES[to]!;
  return {
    state: next.state,
    blocked_from: next.blocked_from,
    stamped: next.stamped,
    stamp_file: next.stamp_file,
    picked_up: next.picked_up,
    handed_off: next.handed_off,
  };
}
