import type { WuLifecycleState, WuMachineContext, WuMachineEvent } from './work-unit.js';

/**
 * A WU's lifecycle as the fold keeps it — the `wu` machine's state and context in one plain
 * object — and the finite space of them: 4 states × 2 `blocked_from` × 2⁴ flags = 128 lifecycles,
 * numbered so that the fold's transition table (work-unit-steps.ts) is a flat array. No xstate here.
 */
export interface WuLifecycle extends WuMachineContext {
  state: WuLifecycleState;
}

export const INITIAL_WU_LIFECYCLE: WuLifecycle = {
  state: 'ready',
  blocked_from: 'ready',
  stamped: false,
  stamp_file: false,
  picked_up: false,
  handed_off: false,
};

const STATES: readonly WuLifecycleState[] = ['ready', 'in_progress', 'blocked', 'done'];
const BLOCKED_FROM: readonly WuLifecycle['blocked_from'][] = ['ready', 'in_progress'];

/** Every lifecycle, in index order (same keys, in the same order, as the machine's). */
export const WU_LIFECYCLES: readonly WuLifecycle[] = STATES.flatMap((state) =>
  BLOCKED_FROM.flatMap((blocked_from) =>
    Array.from({ length: 16 }, (_, flags) => ({
      state,
      blocked_from,
      stamped: (flags & 8) !== 0,
      stamp_file: (flags & 4) !== 0,
      picked_up: (flags & 2) !== 0,
      handed_off: (flags & 1) !== 0,
    })),
  ),
);

/** The index of `l` in WU_LIFECYCLES, or -1 when it is no lifecycle (a field out of its domain). */
export function lifecycleIndex(l: WuLifecycle): number {
  const state = STATES.indexOf(l.state);
  const from = BLOCKED_FROM.indexOf(l.blocked_from);
  if (state < 0 || from < 0) return -1;
  if (typeof l.stamped !== 'boolean' || typeof l.stamp_file !== 'boolean' || typeof l.picked_up !== 'boolean' || typeof l.handed_off !== 'boolean') return -1;
  return state * 32 + from * 16 + (l.stamped ? 8 : 0) + (l.stamp_file ? 4 : 0) + (l.picked_up ? 2 : 0) + (l.handed_off ? 1 : 0);
}

export function machineEventKey(event: WuMachineEvent): string {
  if (event.type === 'YAML_STATUS') return `YAML_STATUS:${event.status}`;
  if (event.type === 'STAMP_FILE') return `STAMP_FILE:${event.valid}`;
  return event.type;
}
