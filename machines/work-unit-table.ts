import { transition } from 'xstate';
import { INITIAL_WU_CONTEXT, wuMachine, type WuLifecycleState, type WuMachineContext, type WuMachineEvent } from './work-unit.js';

/**
 * The `wu` machine compiled to a lookup table for folding history fast (xstate's `transition()`
 * costs ~35 µs an event; the fold runs it once per distinct (state, context, event) and then
 * reads the table). The table is filled from the machine itself, entry by entry on first use, so
 * it cannot disagree with it; test/work-units/machine.test.ts checks that on random sequences.
 */
export interface WuLifecycle extends WuMachineContext {
  state: WuLifecycleState;
}

export const INITIAL_WU_LIFECYCLE: WuLifecycle = { state: 'ready', ...INITIAL_WU_CONTEXT };

export function machineEventKey(event: WuMachineEvent): string {
  if (event.type === 'YAML_STATUS') return `YAML_STATUS:${event.status}`;
  if (event.type === 'STAMP_FILE') return `STAMP_FILE:${event.valid}`;
  return event.type;
}

function lifecycleKey(l: WuLifecycle): string {
  return `${l.state}|${l.blocked_from}|${+l.stamped}${+l.stamp_file}${+l.picked_up}${+l.handed_off}`;
}

const table = new Map<string, WuLifecycle | null>();

/** The machine's answer, computed with xstate (the slow path, and the table's source). */
export function machineStep(current: WuLifecycle, event: WuMachineEvent): WuLifecycle | null {
  const { state, ...context } = current;
  const snapshot = wuMachine.resolveState({ value: state, context: { ...context } });
  if (!snapshot.can(event)) return null;
  const [next] = transition(wuMachine, snapshot, event);
  return { state: next.value as WuLifecycleState, ...next.context };
}

/** The next lifecycle, or null when the machine rejects the event. Returns a fresh object. */
export function stepWu(current: WuLifecycle, event: WuMachineEvent): WuLifecycle | null {
  const key = `${lifecycleKey(current)}>${machineEventKey(event)}`;
  let next = table.get(key);
  if (next === undefined) {
    next = machineStep(current, event);
    table.set(key, next);
  }
  return next === null ? null : { ...next };
}
